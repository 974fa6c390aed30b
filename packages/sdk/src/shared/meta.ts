// What every helper hands back about a call: the response's `optimizer` cost block plus the
// gateway's call id and served model from its response headers. Framework-neutral, so the
// AI SDK and LangChain helpers report it in one shape.
import { optimizerAnnotation, type OptimizerAnnotation, type OptimizerBlock } from '@optimizer/schema';
import { clientValidationError } from '../errors.ts';

export interface OptimizerCallInfo extends OptimizerBlock {
  /** The gateway's id for the call (x-optimizer-call-id); look its reasons up with client.calls.find. */
  call_id: string | null;
  /** The model that served the call (x-optimizer-model). */
  model: string | null;
}

/** Internal carrier from a helper's model wrapper to its fetch: never reaches the gateway. */
export const ANNOTATION_HEADER = 'x-optimizer-sdk-annotation';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** Reads the optimizer block of a completion body or final stream chunk; null when it has none. */
export function readBlock(body: unknown): OptimizerBlock | null {
  if (!isObj(body) || !isObj(body.optimizer)) return null;
  const o = body.optimizer;
  return {
    cache_hit: o.cache_hit === true,
    baseline_cost: num(o.baseline_cost),
    served_cost: num(o.served_cost),
    actual_cost: num(o.actual_cost),
    exploration_cost: num(o.exploration_cost),
    saving: num(o.saving),
  };
}

type HeaderBag = Headers | Record<string, string | undefined> | undefined;

function header(h: HeaderBag, name: string): string | null {
  if (!h) return null;
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name);
  const rec = h as Record<string, string | undefined>;
  return rec[name] ?? rec[name.toLowerCase()] ?? null;
}

export function callInfo(block: OptimizerBlock, headers: HeaderBag): OptimizerCallInfo {
  return { ...block, call_id: header(headers, 'x-optimizer-call-id'), model: header(headers, 'x-optimizer-model') || null };
}

/** Checks an annotation with the gateway's own schema; a mistake throws OptimizerError before sending. */
export function checkAnnotation(value: unknown): OptimizerAnnotation {
  const r = optimizerAnnotation.safeParse(value);
  if (!r.success) throw clientValidationError('POST /v1/chat/completions', r.error.issues.map((i) => ({ ...i, path: ['optimizer', ...i.path] })) as never);
  return r.data;
}

/**
 * A fetch that moves the annotation carried in ANNOTATION_HEADER into the JSON body as
 * `optimizer` (where the gateway reads it), and drops the header.
 */
export function annotatingFetch(inner: typeof fetch = (i, init) => globalThis.fetch(i, init)): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    const carried = headers.get(ANNOTATION_HEADER);
    if (carried === null || typeof init?.body !== 'string') return inner(input, init);
    headers.delete(ANNOTATION_HEADER);
    const body = JSON.parse(init.body) as Record<string, unknown>;
    return inner(input, { ...init, headers, body: JSON.stringify({ ...body, optimizer: JSON.parse(carried) as unknown }) });
  };
}
