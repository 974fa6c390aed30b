// A managed agent's LLM call goes through the gateway's own completion pipeline, as a
// tenant's call would (routed, cached, metered, billed): the pipeline's handler is run on a
// request made here and answers on a response captured here instead of a socket.
import { EventEmitter } from 'node:events';
import { toApiError } from '../failures/to-api-error.ts';
import type { PipelineHandler, ResponseSink, SinkStream } from '../pipeline/sink.ts';
import type { Principal } from '../tenancy/key-cache.ts';

/** The raw stream of a whole answer: a stream is never asked for here, so writing one is a bug. */
class NoStream extends EventEmitter {
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  socket = null;
  writeHead(): never {
    throw new Error('a managed agent asks for whole answers, never a stream');
  }
  flushHeaders(): void {}
  write(): boolean {
    return this.writeHead();
  }
  end(): void {}
  cork(): void {}
  uncork(): void {}
}

class CapturedReply implements ResponseSink {
  readonly #start = performance.now();
  readonly raw: SinkStream = new NoStream() as unknown as SinkStream;
  status = 200;
  readonly head: Record<string, string> = {};
  body: string | null = null;

  get elapsedTime(): number {
    return performance.now() - this.#start;
  }
  code(status: number): ResponseSink {
    this.status = status;
    return this;
  }
  headers(values: Record<string, string>): ResponseSink {
    Object.assign(this.head, values);
    return this;
  }
  header(name: string, value: string): ResponseSink {
    this.head[name.toLowerCase()] = value;
    return this;
  }
  send(payload: string): undefined {
    this.body = payload;
    const raw = this.raw as unknown as NoStream;
    raw.writableEnded = raw.writableFinished = true;
    return undefined;
  }
  hijack(): never {
    throw new Error('a managed agent asks for whole answers, never a stream');
  }
}

export interface GatewayAnswer {
  ok: boolean;
  status: number;
  /** The call's id in /v1/calls (x-optimizer-call-id), when the pipeline got as far as a call. */
  callId: string | null;
  /** The completion (ok), or the error envelope's `error`. */
  body: Record<string, any>;
}

/** Runs one completion for `principal`; never throws for an API error, which is the answer. */
export async function gatewayCall(handler: PipelineHandler, principal: Principal, body: Record<string, unknown>, idempotencyKey: string): Promise<GatewayAnswer> {
  const reply = new CapturedReply();
  try {
    await handler({ headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey }, body, principal }, reply);
  } catch (err) {
    const e = toApiError(err);
    return { ok: false, status: e.status, callId: null, body: e.toBody().error };
  }
  const parsed = reply.body === null ? {} : (JSON.parse(reply.body) as Record<string, any>);
  const callId = reply.head['x-optimizer-call-id'] ?? null;
  return reply.status < 400 ? { ok: true, status: reply.status, callId, body: parsed } : { ok: false, status: reply.status, callId, body: (parsed.error ?? parsed) as Record<string, any> };
}
