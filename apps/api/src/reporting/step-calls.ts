// The stored calls behind one step (spec 4.2 `GET /v1/workflows/:id/steps/:fingerprint/calls`):
// the call records the optimizer attributed to that fingerprint, optionally only those
// a given model served, newest first, in the curated per-call view.
import type { Database } from '../db/database.ts';
import { CallRecord } from '../db/entities.ts';
import type { Meter } from '../meter/meter.ts';
import { callView } from './calls.ts';

export const STEP_CALLS_LIMIT = 100;

export async function stepCalls(db: Database, meter: Meter, q: { accountId: string; workflowId: string; fingerprint: string; model?: string | undefined; limit?: number }) {
  await meter.flush(); // read your own writes on this replica
  const params: (string | number)[] = [q.accountId, q.workflowId, q.fingerprint];
  let byModel = '';
  if (q.model !== undefined) {
    byModel = ' and served_model = ?';
    params.push(q.model);
  }
  params.push(q.limit ?? STEP_CALLS_LIMIT);
  const em = db.em();
  const ids = (await em.getConnection().execute(
    `select id from call_records
      where account_id = ? and workflow_id = ? and detail->'optimizer' is not null and detail->'optimizer'->>'fingerprint' = ?${byModel}
      order by created_at desc, id desc limit ?`,
    params,
  )) as { id: string }[];
  if (ids.length === 0) return [];
  const rows = await em.find(CallRecord, { id: { $in: ids.map((r) => r.id) } }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  return rows.map(callView);
}
