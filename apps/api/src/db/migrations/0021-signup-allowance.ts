import { Migration } from '@mikro-orm/migrations';

/**
 * The dev allowance becomes a platform setting the admin controls (docs/decisions.md, "Hostile
 * input"): `platform_settings` holds it (one row per topic), and each account keeps what it was
 * promised at signup (`dev_allowance_micros`; null for accounts made before, which keep the
 * configured default) and, when the setting asked for it, whether its email was confirmed
 * (only a keyed hash of the emailed token is stored).
 */
export class SignupAllowance extends Migration {
  override name = '0021-signup-allowance';
  up(): void {
    this.addSql(`create table platform_settings (topic text primary key, settings jsonb not null, updated_at timestamptz not null default now())`);
    this.addSql(`alter table accounts
      add column dev_allowance_micros bigint,
      add column confirmation_required boolean not null default false,
      add column confirmation_token_hash text unique,
      add column email_confirmed_at timestamptz`);
  }
}
