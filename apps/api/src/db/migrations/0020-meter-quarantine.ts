import { Migration } from '@mikro-orm/migrations';

/**
 * Metering rows PostgreSQL refused (a value it cannot store, a constraint), set aside by the
 * meter (meter/quarantine.ts) so one bad row never stops the rows written with it. The row is
 * kept as the JSON text the meter had (text, not jsonb: what jsonb refused must still fit), with
 * the table it was for, PostgreSQL's reason and SQLSTATE. The id is derived from the row, so a
 * replayed write-ahead file quarantines it once. The admin replays or discards it; the row stays,
 * marked, so the same line replayed again later is not quarantined a second time.
 */
export class MeterQuarantine extends Migration {
  override name = '0020-meter-quarantine';
  up(): void {
    this.addSql(`create table meter_quarantine (
      id text primary key,
      kind text not null,
      account_id text,
      row_json text not null,
      sqlstate text,
      reason text not null,
      source text not null check (source in ('flush', 'replay')),
      status text not null default 'quarantined' check (status in ('quarantined', 'replayed', 'discarded')),
      created_at timestamptz not null default now(),
      resolved_at timestamptz)`);
    this.addSql(`create index meter_quarantine_time_idx on meter_quarantine(created_at desc, id desc)`);
  }
}
