import { Migration } from '@mikro-orm/migrations';

/**
 * The semantic cache, durable and shared: each entry's question, its embedding (so a
 * restart rebuilds the in-memory index without re-embedding) and its answer; and per
 * step, the judge's checks of semantic hits and whether the step has lost semantic caching.
 */
export class SemanticCache extends Migration {
  override name = '0006-semantic-cache';
  up(): void {
    this.addSql(`create table semantic_cache_entries (
      id text primary key,
      account_id text not null references accounts(id) on delete cascade,
      step text not null,
      scope text not null,
      question text not null,
      embedder text not null,
      vector bytea not null,
      answer jsonb not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null)`);
    this.addSql(`create index semantic_cache_entries_account_idx on semantic_cache_entries(account_id, expires_at)`);
    this.addSql(`create table semantic_cache_steps (
      account_id text not null references accounts(id) on delete cascade,
      step text not null,
      checked integer not null default 0,
      failed integer not null default 0,
      disabled boolean not null default false,
      reason text,
      updated_at timestamptz not null default now(),
      primary key (account_id, step))`);
  }
}
