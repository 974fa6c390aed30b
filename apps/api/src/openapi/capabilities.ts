// The OpenAPI operations of the capabilities, one for each REST door: the input's zod schema
// and where REST reads it, the answer's schema (a list inside `{ data }`), the status, the
// headers and the errors, all from the definition (apps/api/src/capabilities/).
import { z } from 'zod';
import { capabilityList, restSource, type CapabilityTree } from '../capabilities/capability.ts';
import { outputJson } from './json.ts';
import type { Operation } from './operation.ts';

const noStore = { 'Cache-Control': { description: '`no-store`: the answer holds a secret shown only once, or money.', schema: { type: 'string' } } };

export function capabilityOperations(set: CapabilityTree): Operation[] {
  const ops: Operation[] = [];
  for (const { cap } of capabilityList(set)) {
    const rest = cap.rest;
    if (!rest) continue;
    const from = restSource(cap);
    const [status = 200, ...more] = typeof rest.status === 'function' ? (rest.statuses ?? [200]) : [rest.status ?? 200];
    const empty = status === 204;
    const body = rest.list ? z.object({ data: cap.output }) : cap.output;
    ops.push({
      method: rest.method,
      path: rest.path,
      tag: rest.tag,
      summary: rest.summary,
      ...(rest.description ? { description: rest.description } : {}),
      auth: cap.auth,
      ...(cap.input && from ? { input: { schema: cap.input as z.ZodType, from } } : {}),
      ok: {
        status,
        description: rest.answer,
        ...(empty ? { content: 'none' as const } : { schema: body }),
        ...(rest.noStore ? { headers: noStore } : {}),
      },
      ...(more.length ? { also: more.map((st) => ({ status: st, description: rest.answer, schema: outputJson(body) })) } : {}),
      ...(rest.errors ? { errors: rest.errors } : {}),
    });
  }
  return ops;
}
