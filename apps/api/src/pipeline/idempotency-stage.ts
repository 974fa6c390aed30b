// Stage: idempotency (idempotency.ts holds the keys): a retried call with an Idempotency-Key
// seen before ends in its earlier answer, neither dispatched nor metered again.
import type { CallContext } from './context.ts';
import { readKey, type Idempotency } from './idempotency.ts';
import type { Replayed } from './outcome.ts';

/** Stage: idempotency. A key seen before ends the call in its earlier answer (Replayed); a new one is claimed for this call. */
export async function idempotencyStage(ctx: CallContext, idempotency: Idempotency, header: string | string[] | undefined, body: unknown): Promise<Replayed | null> {
  ctx.idempotencyKey = readKey(header);
  if (!ctx.idempotencyKey) return null;
  const begun = await idempotency.begin(ctx.principal.accountId, ctx.idempotencyKey, body);
  if (begun.kind === 'replay') return { kind: 'replayed', record: begun.record };
  ctx.claim = begun.claim;
  return null;
}
