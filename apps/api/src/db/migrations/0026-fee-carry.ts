import { Migration } from '@mikro-orm/migrations';

/**
 * Stripe's minimum charge (issue 35): a period whose fee line would be under $0.50 is not
 * invoiced but `carried`; the next period's line takes it (`carried_in_micros` on the row that
 * invoices it, `carried_to` on each row it took, naming that period), once the sum reaches the minimum.
 */
export class FeeCarry extends Migration {
  override name = '0026-fee-carry';
  up(): void {
    this.addSql(`alter table fee_invoices drop constraint fee_invoices_status_check`);
    this.addSql(`alter table fee_invoices add constraint fee_invoices_status_check check (status in ('closing', 'nothing_due', 'carried', 'open', 'paid'))`);
    this.addSql(`alter table fee_invoices add column carried_in_micros bigint not null default 0, add column carried_to text`);
  }
}
