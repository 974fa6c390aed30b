// The one place the SDK calls fetch: builds the URL and headers, turns failed
// responses and network failures into OptimizerError, and parses JSON answers.
import type { z } from 'zod';
import { OptimizerError, clientValidationError, networkError, toOptimizerError } from './errors.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** Which bearer a route takes: the tenant key, the platform admin key, or none. */
export type Auth = 'tenant' | 'admin' | 'none';

export interface TransportOptions {
  baseURL: string;
  apiKey?: string;
  adminKey?: string;
  fetch?: typeof fetch;
  /** Sent on every request. */
  headers?: Record<string, string>;
}

export interface RequestSpec {
  method: Method;
  path: string;
  auth: Auth;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string | undefined>;
  signal?: AbortSignal;
  accept?: string;
}

/** Encodes one path segment (ids, model names, provider names). */
export const seg = (s: string): string => encodeURIComponent(s);

/** "http://host:8080/v1/" and "http://host:8080" both mean the gateway at http://host:8080. */
export function normalizeBaseURL(baseURL: string): string {
  return baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** Parses with a wire schema, or throws OptimizerError (status 0, code client_validation). */
export function validate<S extends z.ZodType>(schema: S, input: unknown, endpoint: string): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  throw clientValidationError(endpoint, r.error.issues as Parameters<typeof clientValidationError>[1]);
}

export class Transport {
  readonly baseURL: string;
  readonly #apiKey: string | undefined;
  readonly #adminKey: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #headers: Record<string, string>;

  constructor(opts: TransportOptions) {
    if (!opts.baseURL) throw new TypeError('OptimizerClient needs a baseURL, e.g. http://127.0.0.1:8080');
    this.baseURL = normalizeBaseURL(opts.baseURL);
    this.#apiKey = opts.apiKey;
    this.#adminKey = opts.adminKey;
    this.#fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#headers = opts.headers ?? {};
  }

  #bearer(auth: Auth, endpoint: string): string | null {
    if (auth === 'none') return null;
    const key = auth === 'admin' ? this.#adminKey : this.#apiKey;
    if (key) return key;
    const [code, option] = auth === 'admin' ? ['missing_admin_key', 'adminKey'] : ['missing_api_key', 'apiKey'];
    throw new OptimizerError({ status: 0, endpoint, code, type: 'authentication_error', message: `${endpoint} needs the ${option} client option.` });
  }

  /** Sends the request; resolves only with a 2xx response. */
  async send(spec: RequestSpec): Promise<Response> {
    const endpoint = `${spec.method} ${spec.path}`;
    const url = new URL(this.baseURL + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));

    const headers: Record<string, string> = { accept: spec.accept ?? 'application/json', ...this.#headers };
    const bearer = this.#bearer(spec.auth, endpoint);
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    for (const [k, v] of Object.entries(spec.headers ?? {})) if (v !== undefined) headers[k] = v;

    const f = this.#fetch;
    let res: Response;
    try {
      res = await f(url, {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: spec.signal,
      });
    } catch (cause) {
      throw networkError(endpoint, this.baseURL, cause);
    }
    if (!res.ok) {
      const raw = await res.text().catch(() => '');
      throw toOptimizerError(res.status, endpoint, raw, res.headers);
    }
    return res;
  }

  /** Sends and parses the JSON answer; an empty answer (204) is undefined. */
  async json<T>(spec: RequestSpec): Promise<T> {
    return (await this.answer<T>(spec)).body;
  }

  /** Sends and parses the JSON answer, keeping the response's headers beside it. */
  async answer<T>(spec: RequestSpec): Promise<{ body: T; headers: Headers }> {
    const res = await this.send(spec);
    const raw = await res.text();
    if (raw.trim() === '') return { body: undefined as T, headers: res.headers };
    try {
      return { body: JSON.parse(raw) as T, headers: res.headers };
    } catch (cause) {
      throw new OptimizerError({
        status: res.status,
        endpoint: `${spec.method} ${spec.path}`,
        code: 'invalid_response',
        message: `${spec.method} ${spec.path} answered a body that is not JSON`,
        rawBody: raw,
        cause,
      });
    }
  }

  /** For list routes, which answer `{ data: [...] }`. */
  async list<T>(spec: RequestSpec): Promise<T[]> {
    const body = await this.json<{ data?: T[] } | undefined>(spec);
    return body?.data ?? [];
  }
}
