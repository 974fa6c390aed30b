import { Migration } from '@mikro-orm/migrations';

/**
 * Running totals of metered calls per tenant, workflow and saving source, kept by the same
 * statement that inserts the calls (meter/meter.ts). The dashboard's savings and the agent
 * list read them instead of summing a tenant's whole call history on every page load.
 * Filled from the calls already stored.
 */
export class CallTotals extends Migration {
  override name = '0008-call-totals';
  up(): void {
    this.addSql(`create table call_totals (
      account_id text not null,
      workflow_id text not null,
      saving_source text not null default '',
      calls bigint not null,
      baseline_micros bigint not null,
      actual_micros bigint not null,
      saving_micros bigint not null,
      primary key (account_id, workflow_id, saving_source))`);
    this.addSql(`insert into call_totals
      select account_id, workflow_id, coalesce(saving_source, ''), count(*), coalesce(sum(baseline_micros), 0), coalesce(sum(actual_micros), 0), coalesce(sum(saving_micros), 0)
        from call_records group by 1, 2, 3`);
  }
}
