import { Migration } from '@mikro-orm/migrations';

/**
 * One row per tenant and settings topic (capture, guard, alerts, …): the topics beside
 * routing share one table and one in-memory store, so a new topic adds a schema, not a table.
 */
export class TenantSettings extends Migration {
  override name = '0010-tenant-settings';
  up(): void {
    this.addSql(`create table tenant_settings (
      account_id text not null references accounts(id) on delete cascade,
      topic text not null,
      settings jsonb not null,
      updated_at timestamptz not null default now(),
      primary key (account_id, topic))`);
  }
}
