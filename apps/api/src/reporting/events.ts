// Production events of a workflow (failover now; drift and resettled as the
// optimizer lands), newest first.
import type { Database } from '../db/database.ts';
import { WorkflowEvent } from '../db/entities.ts';
import type { Meter } from '../meter/meter.ts';

export async function workflowEvents(db: Database, meter: Meter, accountId: string, workflowId: string, days: number) {
  await meter.flush();
  const since = new Date(Date.now() - days * 86_400_000);
  const rows = await db.em().find(WorkflowEvent, { accountId, workflowId, createdAt: { $gte: since } }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 1000 });
  return rows.map((e) => ({ id: e.id, kind: e.kind, at: e.createdAt.toISOString(), call_id: e.callId, ...e.payload }));
}
