import { Migration } from '@mikro-orm/migrations';

/**
 * Metered calls summed per tenant, hour or minute (UTC) and saving source, kept by the same
 * statement that inserts the calls (meter/meter.ts), for the dashboard's savings chart
 * (reporting/savings-series.ts): it summed a month of raw calls on every load (1.1 s at 330,000
 * calls a month). Filled from the calls already stored; the retention job deletes rows as old
 * as the partitions it drops.
 */
export class CallRollups extends Migration {
  override name = '0019-call-rollups';
  up(): void {
    this.addSql(`create table call_rollups (
      account_id text not null,
      grain text not null check (grain in ('hour', 'minute')),
      at timestamptz not null,
      saving_source text not null default '',
      calls bigint not null,
      baseline_micros bigint not null,
      actual_micros bigint not null,
      saving_micros bigint not null,
      primary key (account_id, grain, at, saving_source))`);
    this.addSql(rollupsFrom(''));
  }
}

/** Fills the rollups from stored calls (those matching `where`, e.g. `where account_id = ?`): the migration's backfill, and a generated history's. */
export function rollupsFrom(where: string): string {
  return `insert into call_rollups
    select account_id, g.grain, date_trunc(g.grain, created_at, 'UTC'), coalesce(saving_source, ''), count(*),
           coalesce(sum(baseline_micros), 0), coalesce(sum(actual_micros), 0), coalesce(sum(saving_micros), 0)
      from call_records, (values ('hour'), ('minute')) as g(grain) ${where} group by 1, 2, 3, 4`;
}
