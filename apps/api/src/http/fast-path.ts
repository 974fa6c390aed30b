// The data plane's hot path on node:http, in front of Fastify. A well-formed
// `POST /v1/chat/completions` (JSON body with a Content-Length within the limit) is
// served here: bearer auth from memory, body read and parsed once, then the same
// pipeline handler the Fastify route runs, with a small reply object that answers
// exactly as Fastify would (status, headers, error envelope, log line). Anything
// else, including every malformed variant of that request, falls through to Fastify,
// whose route and error handling stay the reference. See docs/decisions.md.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Principal } from '../tenancy/key-cache.ts';
import { TENANT_KEY_PREFIX } from '../security/secrets.ts';
import type { Metrics } from './metrics.ts';
import { toApiError } from './error-handler.ts';

/** What the completion handler reads from a request, whichever server received it. */
export interface PipelineRequest {
  headers: IncomingMessage['headers'];
  body: unknown;
  /** The body's text as received, when the server read it whole (the fast path). */
  rawBody?: string;
  principal: Principal | null;
}

export type PipelineHandler = (request: PipelineRequest, reply: FastifyReply) => Promise<void>;

/**
 * The subset of FastifyReply the pipeline uses, on a bare ServerResponse. `send`
 * takes what the pipeline sends (strings, or an object for the error envelope) and
 * sets Content-Type and Content-Length the way Fastify does for those.
 */
export class RawReply {
  readonly raw: ServerResponse;
  readonly #startedAt: number;
  statusCode = 200;
  sent = false;
  #headers: Record<string, string | number> = {};

  /** What must be done before a response leaves (metering lines reaching their file); null when nothing. */
  readonly #gate: () => Promise<void> | null;

  constructor(res: ServerResponse, startedAt: number, gate: () => Promise<void> | null = () => null) {
    this.raw = res;
    this.#startedAt = startedAt;
    this.#gate = gate;
  }

  get elapsedTime(): number {
    return performance.now() - this.#startedAt;
  }

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  status(status: number): this {
    return this.code(status);
  }

  header(name: string, value: string | number): this {
    this.#headers[name.toLowerCase()] = value;
    return this;
  }

  headers(values: Record<string, string | number>): this {
    for (const name in values) this.#headers[name.toLowerCase()] = values[name]!;
    return this;
  }

  getHeader(name: string): string | number | undefined {
    return this.#headers[name.toLowerCase()];
  }

  hijack(): this {
    this.sent = true;
    return this;
  }

  send(payload?: unknown): this {
    if (this.sent) return this;
    this.sent = true;
    const res = this.raw;
    if (res.destroyed || res.writableEnded) return this;
    let body: string;
    if (typeof payload === 'string') {
      body = payload;
      const type = this.#headers['content-type'];
      if (type === undefined) this.#headers['content-type'] = 'text/plain; charset=utf-8';
      else if (typeof type === 'string' && type.includes('json') && !/;\s*charset=/i.test(type)) {
        // Fastify names the charset of a JSON string payload whose type does not
        this.#headers['content-type'] = `${type.replace(/;\s*$/, '')}; charset=utf-8`;
      }
    } else if (payload === undefined || payload === null) {
      body = '';
    } else {
      body = JSON.stringify(payload);
      this.#headers['content-type'] ??= 'application/json; charset=utf-8';
    }
    const gate = this.#gate();
    if (gate === null) this.#write(body);
    else {
      gate.then(
        () => this.#write(body),
        () => {
          this.statusCode = 500;
          this.#headers = { 'content-type': 'application/json; charset=utf-8' };
          this.#write(JSON.stringify(new ApiError('internal').toBody()));
        },
      );
    }
    return this;
  }

  #write(body: string): void {
    const res = this.raw;
    if (res.destroyed || res.writableEnded) return;
    this.#headers['content-length'] = Buffer.byteLength(body);
    res.writeHead(this.statusCode, this.#headers);
    res.end(body);
  }
}

export interface FastPathDeps {
  logger: Logger;
  metrics: Metrics;
  bodyLimit: number;
  /** Resolves a bearer key from memory when it can (undefined: ask `resolveKey`). */
  cachedKey: (key: string) => Principal | null | undefined;
  resolveKey: (key: string) => Promise<Principal | null>;
  completion: PipelineHandler;
  /** Settles when every metering line recorded so far is written; null when they are (see RawReply). */
  written: () => Promise<void> | null;
  /** True once the server is closing: Fastify then answers 503 itself. */
  closing: () => boolean;
}

const ROUTE = '/v1/chat/completions';
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Whether a Content-Type is JSON, as Fastify's `application/json` parser matches it. */
function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined || !contentType.startsWith('application/json')) return false;
  const next = contentType.charCodeAt(16);
  return Number.isNaN(next) || next === 59 /* ; */ || next === 32 /* space */;
}

/** The parsed body, as the Fastify content-type parser in app.ts produces it. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
}

let reqSeq = 0;

export class FastPath {
  readonly #d: FastPathDeps;

  constructor(deps: FastPathDeps) {
    this.#d = deps;
  }

  /** True when this request is served here; false leaves it to Fastify untouched. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST' || req.url !== ROUTE) return false;
    const h = req.headers;
    const length = h['content-length'];
    if (length === undefined || h['transfer-encoding'] !== undefined || !isJson(h['content-type'])) return false;
    const size = Number(length);
    if (!(size <= this.#d.bodyLimit) || this.#d.closing()) return false;
    const startedAt = performance.now();
    const reply = new RawReply(res, startedAt, this.#d.written);
    const reqId = typeof h['x-request-id'] === 'string' && h['x-request-id'] ? h['x-request-id'] : `req-${(++reqSeq).toString(36)}`;
    res.once('finish', () => this.#d.metrics.requests.incRoute(ROUTE, res.statusCode));

    const request: PipelineRequest = { headers: h, body: undefined, principal: null };
    const fail = (err: unknown) => this.#fail(err, reqId, reply);
    const run = () => {
      let text: string;
      try {
        text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, received).toString('utf8');
        if (received !== size) throw new ApiError('invalid_request', 'Content-Length does not match the body.');
        request.body = parseJsonBody(text);
        request.rawBody = text;
      } catch (err) {
        // As Fastify does when a body cannot be parsed: the client may send more, so the connection closes.
        reply.header('connection', 'close');
        return fail(err);
      }
      this.#d.completion(request, reply as unknown as FastifyReply).catch(fail);
    };

    // Authenticate first (as the route's onRequest hook does), from memory when possible.
    const m = typeof h.authorization === 'string' ? BEARER.exec(h.authorization) : null;
    let authed: Promise<void> | null = null;
    if (!m) fail(new ApiError('missing_api_key'));
    else if (!m[1]!.startsWith(TENANT_KEY_PREFIX)) fail(new ApiError('invalid_api_key'));
    else {
      const key = m[1]!;
      const cached = this.#d.cachedKey(key);
      if (cached === null) fail(new ApiError('invalid_api_key'));
      else if (cached) request.principal = cached;
      else {
        authed = this.#d.resolveKey(key).then((p) => {
          if (!p) throw new ApiError('invalid_api_key');
          request.principal = p;
        });
      }
    }
    if (reply.sent) {
      req.resume(); // the body is drained and dropped, as Fastify does after an onRequest error
      return true;
    }

    const chunks: Buffer[] = [];
    let received = 0;
    let ended = false;
    req.on('data', (c: Buffer) => {
      received += c.length;
      if (received <= size) chunks.push(c);
    });
    req.on('end', () => {
      ended = true;
      if (authed === null) run();
    });
    if (authed) {
      authed.then(() => {
        authed = null;
        if (ended) run();
      }, fail);
    }
    return true;
  }

  #fail(err: unknown, reqId: string, reply: RawReply): void {
    const e = toApiError(err);
    const level = e.entry.log;
    this.#d.logger[level]({ reqId, code: e.code, status: e.status, err: e.code === 'internal' ? err : undefined }, e.message);
    if (reply.sent || reply.raw.headersSent) {
      if (!reply.raw.writableEnded) reply.raw.destroy();
      return;
    }
    reply.code(e.status).headers(e.headers).send(e.toBody());
  }
}

/** A Fastify `serverFactory`: the node:http server, with the fast path in front of Fastify's handler. */
export function serverWithFastPath(fast: () => FastPath | null) {
  return (handler: (req: IncomingMessage, res: ServerResponse) => void, opts: { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number }): Server => {
    const server = createServer((req, res) => {
      const f = fast();
      if (f === null || !f.handle(req, res)) handler(req, res);
    });
    // What Fastify sets on the server it makes itself.
    server.keepAliveTimeout = opts.keepAliveTimeout ?? 72_000;
    server.requestTimeout = opts.requestTimeout ?? 0;
    server.setTimeout(opts.connectionTimeout ?? 0);
    return server;
  };
}
