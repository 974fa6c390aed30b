// The typed tRPC client for the gateway's tRPC door (/trpc): every tenant capability as a
// procedure, typed by the server's AppRouter (app-router.gen.ts, generated from it). One
// HTTP request per call, so a failure is one response; every failure is thrown as the
// SDK's OptimizerError, as the REST resources throw it.
import { createTRPCClient, httpLink, isTRPCClientError, type TRPCClient } from '@trpc/client';
import { clientCheck } from '../client-checks.ts';
import { networkError, OptimizerError, toOptimizerError } from '../errors.ts';
import { normalizeBaseURL } from '../transport.ts';
import type { AppRouter } from './app-router.gen.ts';

export interface OptimizerTrpcOptions {
  /** The gateway's origin, e.g. http://127.0.0.1:8080 (a trailing /v1 is accepted). */
  baseURL: string;
  /** The tenant key (sk-opt-...); without it the browser's dashboard session cookie is the credential. */
  apiKey?: string;
  fetch?: typeof fetch;
  /** Headers sent on every request. */
  headers?: Record<string, string>;
}

/** The gateway's tRPC procedures: `client.workflow.steps.query({ id })`, `client.savings.query()`, ... */
export type OptimizerTrpcClient = TRPCClient<AppRouter>;

/** The path of the tRPC door on the gateway's origin. */
export const TRPC_PATH = '/trpc';

/**
 * A fetch that resolves only with a 2xx response: anything else (and a network failure)
 * rejects with the OptimizerError for it, read from the raw body tRPC answered.
 */
function failingFetch(f: typeof fetch, baseURL: string): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const endpoint = `${(init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()} ${url.pathname}`;
    let res: Response;
    try {
      res = await f(input, init);
    } catch (cause) {
      throw networkError(endpoint, baseURL, cause);
    }
    if (res.ok) return res;
    const raw = await res.text().catch(() => '');
    throw toOptimizerError(res.status, endpoint, raw, res.headers);
  };
}

/** What a failed call throws: the OptimizerError behind tRPC's wrapper, or one made from it. */
function unwrap(err: unknown, path: string): unknown {
  if (err instanceof OptimizerError) return err;
  if (!isTRPCClientError(err)) return err;
  if (err.cause instanceof OptimizerError) return err.cause;
  // a 2xx answer tRPC could not read (not JSON, not tRPC's shape)
  const response = (err.meta as { response?: Response } | undefined)?.response;
  return new OptimizerError({ status: response?.status ?? 0, endpoint: `${TRPC_PATH}/${path}`, code: 'invalid_response', message: err.message, cause: err });
}

/** Follows the client's procedure paths, and rethrows each call's failure as an OptimizerError. */
function mapErrors(target: unknown, path: string[]): unknown {
  return new Proxy(() => undefined, {
    // not thenable, so awaiting the client or a router is not read as a call
    get: (_t, key) => (typeof key !== 'string' || ['then'].includes(key) ? undefined : mapErrors((target as Record<string, unknown>)[key], [...path, key])),
    apply: (_t, _this, args: unknown[]) => {
      const procedure = path.slice(0, -1).join('.');
      try {
        if (args.length > 0) args = [clientCheck(procedure, args[0], `POST ${TRPC_PATH}/${procedure}`), ...args.slice(1)];
      } catch (err) {
        return Promise.reject(err);
      }
      const result = (target as (...a: unknown[]) => unknown)(...args);
      if (!(result instanceof Promise)) return result;
      return result.catch((err: unknown) => {
        throw unwrap(err, path.slice(0, -1).join('.'));
      });
    },
  });
}

/** A typed client for the tRPC door; its failures are OptimizerErrors. */
export function createTrpcClient(opts: OptimizerTrpcOptions): OptimizerTrpcClient {
  if (!opts.baseURL) throw new TypeError('createTrpcClient needs a baseURL, e.g. http://127.0.0.1:8080');
  const baseURL = normalizeBaseURL(opts.baseURL);
  const f = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: baseURL + TRPC_PATH, headers, fetch: failingFetch(f, baseURL) })] });
  return mapErrors(client, []) as OptimizerTrpcClient;
}
