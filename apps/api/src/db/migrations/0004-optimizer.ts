import { Migration } from '@mikro-orm/migrations';

export class Optimizer extends Migration {
  override name = '0004-optimizer';
  up(): void {
    this.addSql(`create table routing_settings (account_id text primary key, settings jsonb not null, updated_at timestamptz not null default now())`);
    this.addSql(`create table steps (
      workflow_id text not null, fingerprint text not null, account_id text not null, label text not null,
      first_seen timestamptz not null, last_seen timestamptz not null, calls integer not null default 0,
      excluded boolean not null default false, primary key (workflow_id, fingerprint))`);
    this.addSql(`create table evidence (
      id text primary key, account_id text not null, workflow_id text not null, fingerprint text not null,
      release text not null, kind text not null, created_at timestamptz not null, sample jsonb not null)`);
    this.addSql(`create index evidence_step_idx on evidence(workflow_id, fingerprint, created_at)`);
    this.addSql(`create table outcomes (
      id text primary key, account_id text not null, workflow_id text not null, run_id text not null, step_id text not null,
      created_at timestamptz not null, signals jsonb not null, score double precision not null, call_ids jsonb not null)`);
  }
}
