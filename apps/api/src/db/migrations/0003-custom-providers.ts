import { Migration } from '@mikro-orm/migrations';

export class CustomProviders extends Migration {
  override name = '0003-custom-providers';
  up(): void {
    this.addSql(`create table custom_providers (
      name text primary key, base_url text not null, wire text not null,
      sealed_key jsonb, enabled boolean not null default true,
      created_at timestamptz not null default now(), updated_at timestamptz not null default now())`);
  }
}
