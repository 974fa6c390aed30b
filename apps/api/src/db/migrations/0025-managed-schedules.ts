import { Migration } from '@mikro-orm/migrations';

/**
 * Managed agents on a schedule (issue 35): one cron schedule per agent with the input its runs
 * get. `next_at` is the tick due next; the replica whose conditional update moves it on from the
 * tick it read starts that tick's run, so a tick fires once however many replicas look.
 */
export class ManagedSchedules extends Migration {
  override name = '0025-managed-schedules';
  up(): void {
    this.addSql(`create table managed_schedules (
      agent_id text primary key references managed_agents(id) on delete cascade,
      account_id text not null references accounts(id) on delete cascade,
      key_id text not null,
      cron text not null,
      input text not null,
      next_at timestamptz not null,
      last_fired_at timestamptz,
      last_run_id text,
      created_at timestamptz not null default now())`);
    this.addSql(`create index managed_schedules_due_idx on managed_schedules(next_at)`);
  }
}
