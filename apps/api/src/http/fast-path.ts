// The data plane's hot path, in front of Fastify. A well-formed
// `POST /v1/chat/completions` or `POST /v1/responses` (JSON body with a Content-Length
// within the limit), read off the socket by fast-server.ts, is served here: bearer auth
// from memory, body parsed once, then the same pipeline handler the Fastify route runs, its Reply
// rendered on a small reply object that answers exactly as Fastify would (status, headers, error envelope,
// log line). Anything else, including every malformed variant of that request, goes to
// Fastify, whose route and error handling stay the reference. See docs/decisions.md.
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Principal } from '../tenancy/key-cache.ts';
import { TENANT_KEY_PREFIX } from '../security/secrets.ts';
import type { Metrics } from './metrics.ts';
import { loggedFailure } from '../failures/logged-failure.ts';
import type { FastHandler, FastRequest, FastResponse, HotPath } from './fast-server.ts';
import type { PipelineHandler, PipelineRequest } from '../pipeline/reply.ts';
import { clientOf, renderReply, type ReplySink } from './render-reply.ts';
import { parseJsonBody } from './json-body.ts';
import { clientAddress, type DoorThrottle } from '../limits/door-throttle.ts';

/**
 * The socket path's reply on a FastResponse (a ReplySink the pipeline's Reply is rendered on: render-reply.ts), answering as Fastify's reply would. `send` takes what
 * the pipeline sends (strings, or an object for the error envelope) and sets
 * Content-Type and Content-Length the way Fastify does for those.
 */
export class RawReply implements ReplySink {
  readonly raw: FastResponse;
  readonly #startedAt: number;
  statusCode = 200;
  sent = false;
  #headers: Record<string, string | number> = {};

  /** What must be done before a response leaves (metering lines reaching their file); null when nothing. */
  readonly #gate: () => Promise<void> | null;

  constructor(res: FastResponse, startedAt: number, gate: () => Promise<void> | null = () => null) {
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
  /** Resolves a bearer key from memory when it can (undefined: ask `resolveKey`). */
  cachedKey: (key: string) => Principal | null | undefined;
  resolveKey: (key: string) => Promise<Principal | null>;
  completion: PipelineHandler;
  /** POST /v1/responses: the Responses API on the completion pipeline. */
  responses: PipelineHandler;
  /** Settles when every metering line recorded so far is written; null when they are (see RawReply). */
  written: () => Promise<void> | null;
  /** True once the server is closing: Fastify then answers 503 itself. */
  closing: () => boolean;
  /** The doors' abuse limits: wrong keys are counted per client address, as on Fastify (http/auth.ts). */
  doors?: DoorThrottle;
  /** Whether the client address is X-Forwarded-For's first (TRUST_PROXY), as Fastify's request.ip. */
  trustProxy?: boolean;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Whether a Content-Type is JSON, as Fastify's `application/json` parser matches it. */
function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined || !contentType.startsWith('application/json')) return false;
  const next = contentType.charCodeAt(16);
  return Number.isNaN(next) || next === 59 /* ; */ || next === 32 /* space */;
}

let reqSeq = 0;
const reqIdOf = (h: Record<string, string>) => h['x-request-id'] || `req-${(++reqSeq).toString(36)}`;

export class FastPath implements FastHandler {
  readonly #d: FastPathDeps;

  constructor(deps: FastPathDeps) {
    this.#d = deps;
  }

  accepts(headers: Record<string, string>): boolean {
    return isJson(headers['content-type']) && !this.#d.closing();
  }

  authenticate(h: Record<string, string>, remote?: string): Principal | Promise<Principal> {
    // as the route's onRequest hook does, from memory when possible
    const m = h.authorization === undefined ? null : BEARER.exec(h.authorization);
    if (!m) throw new ApiError('missing_api_key');
    const key = m[1]!;
    // an address past the bad-key limit: a key not known here is refused unlooked-up (as tenantOf does)
    const blocked = this.#d.doors?.blocked(clientAddress(remote, h['x-forwarded-for'], this.#d.trustProxy === true)) ?? null;
    if (blocked !== null && !this.#d.cachedKey(key)) throw blocked;
    if (!key.startsWith(TENANT_KEY_PREFIX)) throw new ApiError('invalid_api_key');
    const cached = this.#d.cachedKey(key);
    if (cached === null) throw new ApiError('invalid_api_key');
    if (cached) return cached;
    return this.#d.resolveKey(key).then((p) => {
      if (!p) throw new ApiError('invalid_api_key');
      return p;
    });
  }

  refuse(err: unknown, h: Record<string, string>, res: FastResponse, path: HotPath): void {
    const reply = new RawReply(res, performance.now(), this.#d.written);
    res.once('finish', () => this.#d.metrics.incRoute(path, res.statusCode));
    reply.header('connection', 'close'); // the body is not read (see fast-server.ts)
    const reqId = reqIdOf(h);
    // a wrong key answered here (not handed to Fastify, which counts its own) counts against the address
    const doors = this.#d.doors;
    if (doors && err instanceof ApiError && err.code === 'invalid_api_key') {
      const ip = clientAddress(res.socket.remoteAddress, h['x-forwarded-for'], this.#d.trustProxy === true);
      doors.failed(ip, err).then(
        (e) => this.#fail(e, reqId, reply),
        (e: unknown) => this.#fail(e, reqId, reply),
      );
      return;
    }
    this.#fail(err, reqId, reply);
  }

  serve(req: FastRequest, res: FastResponse): void {
    const h = req.headers;
    const reply = new RawReply(res, performance.now(), this.#d.written);
    const reqId = reqIdOf(h);
    res.once('finish', () => this.#d.metrics.incRoute(req.path, res.statusCode));
    const request: PipelineRequest = { headers: h, body: undefined, principal: req.principal, ...clientOf(reply) };
    const fail = (err: unknown) => this.#fail(err, reqId, reply);
    try {
      request.body = parseJsonBody(req.body);
      request.rawBody = req.body;
    } catch (err) {
      // As Fastify does when a body cannot be parsed: the client may send more, so the connection closes.
      reply.header('connection', 'close');
      return fail(err);
    }
    (req.path === '/v1/responses' ? this.#d.responses : this.#d.completion)(request).then((answer) => renderReply(answer, reply)).catch(fail);
  }

  #fail(err: unknown, reqId: string, reply: RawReply): void {
    const { error: e, level, fields } = loggedFailure(err);
    this.#d.logger[level]({ reqId, ...fields }, e.message);
    if (reply.sent || reply.raw.headersSent) {
      if (!reply.raw.writableEnded) reply.raw.destroy();
      return;
    }
    reply.code(e.status).headers(e.headers).send(e.toBody());
  }
}
