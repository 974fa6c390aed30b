// A managed agent's LLM call goes through the gateway's own completion pipeline, as a
// tenant's call would (routed, cached, metered, billed): an in-process transport. The
// pipeline's handler is run on a request made here and its Reply, a value, is read here: no
// socket and no server's reply is stood in for.
import { toApiError } from '../failures/to-api-error.ts';
import { bodyText, type PipelineHandler } from '../pipeline/reply.ts';
import type { Principal } from '../tenancy/key-cache.ts';

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
  const start = performance.now();
  let status: number;
  let text: string;
  let callId: string | null;
  try {
    const reply = await handler({ headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey }, body, principal, elapsed: () => performance.now() - start, gone: new AbortController().signal }); // nobody goes away from an in-process call
    status = reply.status;
    callId = reply.headers['x-optimizer-call-id'] ?? null;
    text = await bodyText(reply); // a managed agent asks for whole answers; a stream would be read whole
    reply.after?.();
  } catch (err) {
    const e = toApiError(err);
    return { ok: false, status: e.status, callId: null, body: e.toBody().error };
  }
  const parsed = JSON.parse(text) as Record<string, any>;
  return status < 400 ? { ok: true, status, callId, body: parsed } : { ok: false, status, callId, body: (parsed.error ?? parsed) as Record<string, any> };
}
