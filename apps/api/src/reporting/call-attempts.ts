// A call's attempts at vendors, for its detail: each with its vendor, model, role (serving the
// answer, probing a cheaper model, grading as the judge), latency, cost and, for one that
// failed, why (its status, and the failover reason that names it).
import type { Database } from '../db/database.ts';
import { ActivityEntry, type CallRecord } from '../db/entities.ts';

const usd = (m: number) => Math.round(m) / 1e6;

/** Attempts are metered from the call's start on; a little slack for clocks of other replicas. */
const SLACK_MS = 60_000;

export interface CallAttempt {
  attempt: number;
  role: string;
  vendor: string;
  model: string;
  status: number | null;
  outcome: string;
  latency_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  error: string | null;
}

/** Why an attempt failed: the failover reason naming its model, else its status. */
function errorOf(a: ActivityEntry, reasons: readonly string[]): string | null {
  const outcome = a.outcome.includes(':') ? a.outcome.slice(a.outcome.indexOf(':') + 1) : a.outcome;
  if (outcome === 'ok') return null;
  const failover = reasons.find((r) => r.startsWith(`failed over from ${a.model} (`));
  const why = failover ? failover.slice(failover.indexOf('): ') + 3) : null;
  const status = a.status === null ? 'no answer' : `HTTP ${a.status}`;
  return why ? `${status}: ${why}` : outcome === 'cancelled' ? 'cancelled' : status;
}

export async function callAttempts(db: Database, r: CallRecord, reasons: readonly string[]): Promise<CallAttempt[]> {
  const rows = await db.em().find(
    ActivityEntry,
    { accountId: r.accountId, callId: r.id, createdAt: { $gte: new Date(r.createdAt.getTime() - SLACK_MS) } },
    { orderBy: { attempt: 'asc', createdAt: 'asc' } },
  );
  return rows.map((a) => ({
    attempt: a.attempt,
    role: a.outcome.includes(':') ? a.outcome.slice(0, a.outcome.indexOf(':')) : 'serve',
    vendor: a.provider,
    model: a.model,
    status: a.status ?? null,
    outcome: a.outcome.includes(':') ? a.outcome.slice(a.outcome.indexOf(':') + 1) : a.outcome,
    latency_ms: Number(a.latencyMs),
    prompt_tokens: a.promptTokens,
    completion_tokens: a.completionTokens,
    cost: usd(a.costMicros),
    error: errorOf(a, reasons),
  }));
}
