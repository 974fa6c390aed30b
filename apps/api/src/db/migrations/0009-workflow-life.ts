import { Migration } from '@mikro-orm/migrations';

/**
 * Workflow life (design §9). A workflow's stored stage is `tuning` or `production`;
 * `ready` is derived at read time (every expected step settled), so it is never stored.
 * Only billing's subscription moves a workflow to `production`, and a lapsed one moves it
 * back. Reports are frozen as numbered versions; the lockfile is derived from the newest.
 */
export class WorkflowLife extends Migration {
  override name = '0009-workflow-life';
  up(): void {
    this.addSql(`alter table workflows add column stage text not null default 'tuning' check (stage in ('tuning', 'production'))`);
    this.addSql(`create table workflow_reports (
      workflow_id text not null references workflows(id) on delete cascade,
      account_id text not null references accounts(id) on delete cascade,
      version integer not null check (version > 0),
      finalized_at timestamptz not null default now(),
      body jsonb not null,
      primary key (workflow_id, version))`);
    this.addSql(`create index workflow_reports_account_idx on workflow_reports(account_id)`);
  }
}
