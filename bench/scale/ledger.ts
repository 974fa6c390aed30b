// After a run: every call the gateway acknowledged (its x-optimizer-call-id on a 200) is listed by
// GET /v1/calls exactly once, nothing unacknowledged succeeded, and the dashboard's totals equal
// the sum of the listed calls.
import { agentCalls, api, type Agent } from './tenant.ts';

interface CallRow {
  id: string;
  status: string;
  cost: { baseline: number; actual: number };
  saving: number;
}

interface Savings {
  calls: number;
  baseline_cost: number;
  actual_cost: number;
  saving: number;
  by_source: Record<string, number>;
}

export interface LedgerReport {
  acknowledged: number;
  listed: number;
  lost: number;
  doubleCounted: number;
  /** Listed calls nobody saw acknowledged (answers lost on the way, or failures metered). */
  unacknowledged: number;
  totalsMatch: boolean;
  problems: string[];
}

/** Checks one tenant's ledger; `acked` holds the call ids answered 200 (a replayed key's id once). */
export async function checkLedger(origin: string, ownerKey: string, agents: Agent[], acked: Set<string>): Promise<LedgerReport> {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const rows: CallRow[] = [];
  for (const a of agents) {
    for (const r of await agentCalls<CallRow>(origin, ownerKey, a.id)) {
      seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
      rows.push(r);
    }
  }
  const lost = [...acked].filter((id) => !seen.has(id));
  const doubled = [...seen].filter(([, n]) => n > 1);
  const extra = rows.filter((r) => !acked.has(r.id));
  if (lost.length) problems.push(`${lost.length} acknowledged calls missing, e.g. ${lost.slice(0, 3).join(', ')}`);
  if (doubled.length) problems.push(`${doubled.length} calls listed more than once, e.g. ${doubled[0]![0]}`);
  if (extra.some((r) => r.status === 'ok')) problems.push(`${extra.filter((r) => r.status === 'ok').length} successful calls listed that no client saw acknowledged`);

  const totals = await api<Savings>(origin, ownerKey, 'GET', '/v1/dashboard/savings');
  const sum = (f: (r: CallRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  const tol = 1e-6 * (rows.length + 1);
  const checks: [string, number, number][] = [
    ['calls', totals.calls, rows.length],
    ['baseline_cost', totals.baseline_cost, sum((r) => r.cost.baseline)],
    ['actual_cost', totals.actual_cost, sum((r) => r.cost.actual)],
    ['saving', totals.saving, sum((r) => r.saving)],
    ['saving by source', totals.saving, Object.values(totals.by_source).reduce((s, v) => s + v, 0)],
  ];
  let totalsMatch = true;
  for (const [what, dashboard, listed] of checks) {
    if (Math.abs(dashboard - listed) > (what === 'calls' ? 0 : tol)) {
      totalsMatch = false;
      problems.push(`${what}: dashboard ${dashboard} ≠ listed calls ${listed}`);
    }
  }
  return { acknowledged: acked.size, listed: rows.length, lost: lost.length, doubleCounted: doubled.length, unacknowledged: extra.length, totalsMatch, problems };
}
