// Calls generated straight in the database (INSERT ... SELECT over generate_series, never
// through the gateway), shaped like the meter's rows: each tenant's calls spread evenly over
// the last `months` months, across its workflows, with about 1.1 activity rows per call (one
// attempt, a retry on every tenth) and a few steps per workflow. Used by the storage
// benchmark (10 million calls) and by the plan test (tens of thousands).
import { rollupsFrom } from '../../apps/api/src/db/migrations/0019-call-rollups.ts';

/** Runs one statement with `?` placeholders (MikroORM's connection.execute). */
export type Exec = (sql: string, params?: unknown[]) => Promise<unknown>;

export interface GeneratedTenant {
  accountId: string;
  workflowIds: string[];
  calls: number;
}

const CALL_COLUMNS = `id, account_id, workflow_id, created_at, requested_model, served_model, provider, stream, status, error_code,
  prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, usage_estimated, baseline_micros, served_micros, actual_micros,
  exploration_micros, saving_micros, saving_source, cache_hit, reasons, latency_ms, overhead_ms, vendor_status, idempotency_key, detail`;

/**
 * Inserts calls `from`..`to` (1-based, inclusive) of a tenant's `total`. Call g is received at
 * `end - g/total × span`, so the tenant's history fills the span evenly, newest first.
 */
async function callsChunk(exec: Exec, t: GeneratedTenant, prefix: string, from: number, to: number, end: Date, spanSeconds: number): Promise<void> {
  const at = `(?::timestamptz - (g::float8 * ? / ?) * interval '1 second')`;
  await exec(
    `insert into call_records (${CALL_COLUMNS})
     select ?::text || g, ?, (?::jsonb ->> (g % ?)::int), ${at},
       'gpt-4o', case when g % 3 = 0 then 'gpt-4o-mini' else 'gpt-4o' end, 'openai', g % 5 = 0, case when g % 50 = 0 then 502 else 200 end, null,
       300 + g % 900, 50 + g % 400, (g % 7) * 10, 0, false, 2000 + g % 1000, 900 + g % 500, 900 + g % 500, 0, 1100, (array['cache', 'routing', null, null])[1 + g % 4],
       g % 4 = 0, '["cheaper model met the floor"]'::jsonb, 250 + g % 900, 0.3 + (g % 10) / 20.0, 200, null,
       jsonb_build_object('billing', jsonb_build_object('usage_micros', 900 + g % 500, 'fee_micros', 110),
         'optimizer', case when g % 2 = 0 then jsonb_build_object('fingerprint', 'fp' || (g % 12), 'step', 'step-' || (g % 12), 'policy', 'gpt-4o-mini') end,
         'annotation', jsonb_build_object('run', jsonb_build_object('id', 'run-' || (g / 8))))
     from generate_series(?::bigint, ?::bigint) g`,
    [prefix, t.accountId, JSON.stringify(t.workflowIds), t.workflowIds.length, end.toISOString(), spanSeconds, t.calls, from, to],
  );
  // one attempt per call, and a failed first attempt before every tenth
  await exec(
    `insert into activity (id, call_id, account_id, workflow_id, created_at, attempt, provider, model, status, outcome, latency_ms, prompt_tokens, completion_tokens, cost_micros)
     select ?::text || g || '-' || a, ?::text || g, ?, (?::jsonb ->> (g % ?)::int), ${at}, a, 'openai', 'gpt-4o-mini',
       case when a = 1 and g % 10 = 0 then 502 else 200 end, case when a = 1 and g % 10 = 0 then 'retried' else 'ok' end,
       200 + g % 800, 300 + g % 900, 50 + g % 400, 900 + g % 500
     from generate_series(?::bigint, ?::bigint) g, generate_series(1, case when g % 10 = 0 then 2 else 1 end) a`,
    [prefix, prefix, t.accountId, JSON.stringify(t.workflowIds), t.workflowIds.length, end.toISOString(), spanSeconds, t.calls, from, to],
  );
}

/**
 * A tenant's calls and activity, in chunks (progress between them), plus its running totals
 * and the savings chart's rollups (the meter keeps `call_totals` and `call_rollups` with each
 * batch; a generated history must have them too) and
 * `steps` rows for each workflow.
 */
export async function generateTenant(
  exec: Exec,
  t: GeneratedTenant,
  opts: { months: number; chunk?: number; end?: Date; progress?: (done: number) => void },
): Promise<void> {
  const end = opts.end ?? new Date();
  const spanSeconds = opts.months * 30 * 86_400;
  const chunk = opts.chunk ?? 500_000;
  const prefix = `call_gen_${t.accountId}_`;
  for (let from = 1; from <= t.calls; from += chunk) {
    const to = Math.min(t.calls, from + chunk - 1);
    await callsChunk(exec, t, prefix, from, to, end, spanSeconds);
    opts.progress?.(to);
  }
  await exec(
    `insert into call_totals
     select account_id, workflow_id, coalesce(saving_source, ''), count(*), sum(baseline_micros), sum(actual_micros), sum(saving_micros)
       from call_records where account_id = ? group by 1, 2, 3
     on conflict (account_id, workflow_id, saving_source) do update set calls = excluded.calls, baseline_micros = excluded.baseline_micros,
       actual_micros = excluded.actual_micros, saving_micros = excluded.saving_micros`,
    [t.accountId],
  );
  await exec(rollupsFrom('where account_id = ?'), [t.accountId]);
  await exec(
    `insert into steps (workflow_id, fingerprint, account_id, label, first_seen, last_seen, calls, excluded, last_seen_phase, phases, release)
     select w, 'fp' || s, ?, 'step-' || s, now() - interval '300 days', now(), ?::int, false, 'tuning', '{}'::jsonb, ''
       from jsonb_array_elements_text(?::jsonb) w, generate_series(0, 11) s
     on conflict do nothing`,
    [t.accountId, Math.round(t.calls / t.workflowIds.length / 12), JSON.stringify(t.workflowIds)],
  );
}

/**
 * The statements behind the three reads, with the tenant's values in place (EXPLAIN takes no
 * parameters here): GET /v1/calls as MikroORM writes it (with and without `agent`), the
 * dashboard's savings (reporting/calls.ts), and what the workflow report reads
 * (optimizer/registry.ts, workflows/life.ts).
 */
export function readQueries(accountId: string, workflowId: string, savings: { totals: string; bySource: string }): { name: string; sql: string; table: string }[] {
  const lit = (v: string) => `'${v.replaceAll("'", "''")}'`;
  const bind = (sql: string, ...values: string[]) => values.reduce((s, v) => s.replace('?', lit(v)), sql);
  return [
    {
      name: 'GET /v1/calls',
      table: 'call_records',
      sql: `select c0.* from call_records as c0 where c0.account_id = ${lit(accountId)} order by c0.created_at desc, c0.id desc limit 50`,
    },
    {
      name: 'GET /v1/calls?agent=',
      table: 'call_records',
      sql: `select c0.* from call_records as c0 where c0.account_id = ${lit(accountId)} and c0.workflow_id = ${lit(workflowId)} order by c0.created_at desc, c0.id desc limit 50`,
    },
    { name: 'GET /v1/dashboard/savings (totals)', table: 'call_totals', sql: bind(savings.totals, accountId) },
    { name: 'GET /v1/dashboard/savings (by source)', table: 'call_totals', sql: bind(savings.bySource, accountId) },
    {
      name: 'GET /v1/workflows/:id/report (steps)',
      table: 'steps',
      sql: `select * from steps where account_id = ${lit(accountId)} and workflow_id = ${lit(workflowId)} order by first_seen asc, fingerprint asc`,
    },
    { name: 'GET /v1/workflows/:id/report (tenant steps)', table: 'steps', sql: `select * from steps where account_id = ${lit(accountId)} order by first_seen asc, fingerprint asc` },
  ];
}

/** Whether a plan reads the whole of a table (or of one of its partitions) instead of an index. */
export function seqScans(plan: string, table: string): string[] {
  return plan.split('\n').filter((l) => new RegExp(`Seq Scan on ${table}(_p\\d{6}|_default)?\\b`).test(l));
}
