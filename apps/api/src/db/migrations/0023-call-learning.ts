import { Migration } from '@mikro-orm/migrations';

/**
 * What a routed call spent learning after its answer was sent (probes, judge grades,
 * optimizer/learning-queue.ts), metered in a line of its own once that work ends: one row
 * per call, keyed by the call's id. The meter inserts it (idempotent by id) and then applies
 * it once to the call's record and to the running totals and rollups (`applied`), so a
 * replayed line never adds the spend twice. Applied rows are dropped after a week
 * (db/partitions.ts): a line older than that is never replayed.
 */
export class CallLearning extends Migration {
  override name = '0023-call-learning';
  up(): void {
    this.addSql(`create table if not exists call_learning (
      id text primary key,
      call_created_at timestamptz not null,
      account_id text not null,
      workflow_id text not null,
      created_at timestamptz not null,
      exploration_micros bigint not null,
      detail jsonb not null default '{}',
      applied boolean not null default false)`);
    this.addSql(`create index if not exists call_learning_applied_idx on call_learning(created_at) where applied`);
  }
}
