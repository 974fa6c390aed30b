import { Migration } from '@mikro-orm/migrations';

/**
 * The step registry's per-phase sightings (design §6: "first/last seen per phase") and
 * the release last seen; and discovery mode per workflow: the flag and its USD credit.
 */
export class StepsDiscovery extends Migration {
  override name = '0005-steps-discovery';
  up(): void {
    this.addSql(`alter table steps add column last_seen_phase text`);
    this.addSql(`alter table steps add column phases jsonb not null default '{}'::jsonb`);
    this.addSql(`alter table steps add column release text not null default ''`);
    this.addSql(`create index steps_account_idx on steps(account_id)`);
    this.addSql(`create table discovery (
      workflow_id text primary key references workflows(id) on delete cascade,
      account_id text not null references accounts(id) on delete cascade,
      enabled boolean not null default false,
      credit_micros bigint not null default 5000000,
      used_micros bigint not null default 0,
      updated_at timestamptz not null default now())`);
    this.addSql(`create index discovery_enabled_idx on discovery(enabled) where enabled`);
  }
}
