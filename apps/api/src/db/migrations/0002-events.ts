import { Migration } from '@mikro-orm/migrations';

export class Events extends Migration {
  override name = '0002-events';
  up(): void {
    this.addSql(`create table workflow_events (
      id text primary key, account_id text not null, workflow_id text not null, kind text not null,
      created_at timestamptz not null, call_id text, payload jsonb not null)`);
    this.addSql(`create index workflow_events_wf_time_idx on workflow_events(workflow_id, created_at desc)`);
  }
}
