import { Migration } from '@mikro-orm/migrations';

/**
 * A run's actions list in the order the model proposed them. They were ordered by
 * `clock_timestamp()` at insert, but the embedded PGlite's clock ticks in milliseconds, so two
 * actions proposed in one turn could share a time and then list in the order of their random
 * ids. A sequence gives every action its place at insert, whatever the clock.
 */
export class ActionOrder extends Migration {
  override name = '0018-action-order';
  up(): void {
    this.addSql(`alter table managed_actions add column ord bigserial`);
  }
}
