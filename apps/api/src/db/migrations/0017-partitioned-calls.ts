import { Migration } from '@mikro-orm/migrations';
import { MONTHS_AHEAD, PARTITIONED } from '../partition-names.ts';

/**
 * The tables that grow with every call, `call_records` and `activity`, partitioned by month
 * of `created_at` (UTC), so the retention job drops a whole month at once instead of
 * deleting rows, and reads of recent calls touch recent partitions only (db/partitions.ts
 * creates the months ahead). A unique key on a partitioned table must hold the partition
 * key, so the primary key is (id, created_at): a call's rows carry the time it was received
 * from the first write on, and the meter's replay of the same line conflicts on both and
 * inserts nothing twice. A default partition takes what falls outside every month (a replay
 * of rows older than the oldest month, a clock far ahead) instead of failing the batch.
 * Existing rows are carried over; the months they span get their partitions.
 */
export class PartitionedCalls extends Migration {
  override name = '0017-partitioned-calls';
  up(): void {
    // the old tables' indexes go first: their names are the new tables' to take
    for (const idx of ['call_records_tenant_time_idx', 'call_records_workflow_time_idx', 'call_records_run_idx', 'call_records_step_idx', 'activity_tenant_time_idx']) {
      this.addSql(`drop index ${idx}`);
    }
    for (const t of PARTITIONED) {
      this.addSql(`alter table ${t} rename to ${t}_unpartitioned`);
      this.addSql(`alter index ${t}_pkey rename to ${t}_unpartitioned_pkey`);
      this.addSql(`create table ${t} (like ${t}_unpartitioned including defaults) partition by range (created_at)`);
      this.addSql(`alter table ${t} add primary key (id, created_at)`);
    }
    // a partition per UTC month from the oldest stored row's to MONTHS_AHEAD after this one, and the default
    this.addSql(`do $$
      declare
        t text;
        m timestamp;
        last timestamp := date_trunc('month', now() at time zone 'UTC') + interval '${MONTHS_AHEAD} months';
      begin
        foreach t in array array[${PARTITIONED.map((t) => `'${t}'`).join(', ')}] loop
          execute format('select date_trunc(''month'', min(created_at) at time zone ''UTC'') from %I', t || '_unpartitioned') into m;
          m := least(coalesce(m, last), date_trunc('month', now() at time zone 'UTC'));
          while m <= last loop
            execute format('create table %I partition of %I for values from (%L) to (%L)', t || '_p' || to_char(m, 'YYYYMM'), t,
              to_char(m, 'YYYY-MM-DD') || ' 00:00:00+00', to_char(m + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
            m := m + interval '1 month';
          end loop;
          execute format('create table %I partition of %I default', t || '_default', t);
        end loop;
      end $$`);
    for (const t of PARTITIONED) {
      this.addSql(`insert into ${t} select * from ${t}_unpartitioned`);
      this.addSql(`drop table ${t}_unpartitioned`);
    }
    // A tenant's (or an agent's) calls newest first, the order GET /v1/calls pages in: (created_at, id)
    // in the index, so a page is the first rows of each month's index, with no sort of the tenant's calls.
    this.addSql(`create index call_records_tenant_time_idx on call_records(account_id, created_at desc, id desc)`);
    this.addSql(`create index call_records_workflow_time_idx on call_records(workflow_id, created_at desc, id desc)`);
    this.addSql(
      `create index call_records_run_idx on call_records(account_id, (detail->'annotation'->'run'->>'id')) where detail->'optimizer' is not null`,
    );
    this.addSql(
      `create index call_records_step_idx on call_records(workflow_id, (detail->'optimizer'->>'fingerprint'), created_at desc, id desc) where detail->'optimizer' is not null`,
    );
    this.addSql(`create index activity_tenant_time_idx on activity(account_id, created_at desc, id desc)`);
    for (const t of PARTITIONED) this.addSql(`analyze ${t}`);
  }
}
