import { Migration } from '@mikro-orm/migrations';

/**
 * Recordings (spec 2.7): what the tenant's capture settings keep of each call, written by the
 * meter in batches beside the call record (same id). Listed per workflow newest first, and
 * deleted by the retention sweep by age.
 */
export class Recordings extends Migration {
  override name = '0014-recordings';
  up(): void {
    this.addSql(`create table recordings (
      id text primary key,
      account_id text not null references accounts(id) on delete cascade,
      workflow_id text not null,
      created_at timestamptz not null,
      fingerprint text,
      step text,
      content text not null check (content in ('metadata', 'full')),
      redacted boolean not null default false,
      requested_model text not null,
      served_model text,
      status integer not null,
      error_code text,
      prompt_tokens integer not null default 0,
      completion_tokens integer not null default 0,
      meta jsonb not null,
      request jsonb,
      response jsonb)`);
    this.addSql('create index recordings_page on recordings (account_id, workflow_id, created_at desc, id desc)');
    this.addSql('create index recordings_age on recordings (created_at)');
  }
}
