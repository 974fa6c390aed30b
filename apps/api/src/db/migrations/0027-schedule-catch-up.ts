import { Migration } from '@mikro-orm/migrations';

/**
 * Missed schedule ticks (issue 35): `catch_up_s` is how late a missed tick may still fire (once,
 * for the most recent one; 0 never), and `last_tick_at` the tick the last run was started for.
 */
export class ScheduleCatchUp extends Migration {
  override name = '0027-schedule-catch-up';
  up(): void {
    this.addSql(`alter table managed_schedules add column catch_up_s int not null default 3600, add column last_tick_at timestamptz`);
  }
}
