// Merges a call's annotation over a client's default one, section by section (`step`,
// `run`, `source`, ...): a field the call sets wins, the rest of the section is kept.
import type { OptimizerAnnotation } from '@optimizer/schema';

export function mergeAnnotations(base: OptimizerAnnotation | undefined, call: OptimizerAnnotation | undefined): OptimizerAnnotation | undefined {
  if (!base) return call;
  if (!call) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(call)) out[k] = { ...(base as Record<string, object | undefined>)[k], ...(v as object) };
  return out as OptimizerAnnotation;
}
