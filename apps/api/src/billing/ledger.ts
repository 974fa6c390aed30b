// The double-entry ledger (issue 16): every movement of money is a transaction of two legs
// that sum to zero, one on a tenant book (wallet, dev_allowance) and one on a platform book
// (revenue: what calls were charged; payments: money that came in through Stripe; grants:
// allowances and support credits). A balance is the sum of a book's legs.
import type { LedgerRow } from '../meter/rows.ts';

export type Book = LedgerRow['book'];

/** A transaction's two legs: `amount` leaves `from` and arrives in `to`. Ids derive from the txn id (replays insert nothing twice). */
export function transfer(t: { txn: string; accountId: string; from: Book; to: Book; amount: number; kind: string; callId?: string | null; ref?: string | null; at?: Date }): LedgerRow[] {
  const created_at = (t.at ?? new Date()).toISOString();
  const leg = (book: Book, amount_micros: number, side: string): LedgerRow => ({
    id: `${t.txn}:${side}`,
    txn_id: t.txn,
    account_id: t.accountId,
    book,
    amount_micros,
    kind: t.kind,
    call_id: t.callId ?? null,
    ref: t.ref ?? null,
    created_at,
  });
  return [leg(t.from, -t.amount, 'dr'), leg(t.to, t.amount, 'cr')];
}

/**
 * What a call is charged, split over the books it is paid from (allowance first, then wallet).
 * `part` names a charge settled apart from the call's own (its learning): its own transactions.
 */
export function callCharge(callId: string, accountId: string, fromAllowance: number, fromWallet: number, at: Date, part?: string): LedgerRow[] {
  const txn = part ? `${callId}:${part}` : callId;
  const rows: LedgerRow[] = [];
  if (fromAllowance !== 0) rows.push(...transfer({ txn: `${txn}:allowance`, accountId, from: 'dev_allowance', to: 'revenue', amount: fromAllowance, kind: 'call', callId, at }));
  if (fromWallet !== 0) rows.push(...transfer({ txn: `${txn}:wallet`, accountId, from: 'wallet', to: 'revenue', amount: fromWallet, kind: 'call', callId, at }));
  return rows;
}

/** Inserts legs (idempotent by id), as one statement: both legs of a transaction land together or not at all. */
export const INSERT_LEDGER = `insert into ledger_entries select * from jsonb_populate_recordset(null::ledger_entries, ?::jsonb) on conflict (id) do nothing`;
