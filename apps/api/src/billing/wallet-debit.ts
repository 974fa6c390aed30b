// Taking money from a tenant's wallet outside a call (a fee invoice paid from the wallet, a
// managed subscription's month without a payment processor): one ledger transaction, wallet →
// revenue, named by what it pays for, so a retry, a replay or a second replica inserts nothing
// twice. The account's row is locked first and the balance read after the lock, so two debits
// of one tenant are decided one after the other and never both spend the last of the wallet.
import type { EntityManager } from '@mikro-orm/postgresql';
import { INSERT_LEDGER, transfer } from './ledger.ts';
import { sqlIn } from '../db/sql-in.ts';

export interface WalletDebit {
  accountId: string;
  /** The transaction's id: one per thing paid for (`fee_invoice:<account>:<period>`, `subscription:<workflow>:<period start>`). */
  txn: string;
  micros: number;
  kind: string;
  ref: string;
}

/**
 * Within `em`'s transaction: `new` when this debit was written now, `before` when its transaction
 * already exists (nothing is taken again), false when the wallet does not cover it (nothing written).
 * The caller moves the hot counters (`Budget.credited(account, -micros)`) after a `new` commits.
 */
export async function debitWallet(em: EntityManager, d: WalletDebit): Promise<'new' | 'before' | false> {
  const run = sqlIn(em);
  await run('select 1 from accounts where id = ? for update', [d.accountId]);
  const [seen] = await run<{ id: string }>('select id from ledger_entries where id = ?', [`${d.txn}:dr`]); // a leg's id is its transaction's and its side
  if (seen) return 'before';
  const [bal] = await run<{ wallet: string }>(`select coalesce(sum(amount_micros), 0)::text as wallet from ledger_entries where account_id = ? and book = 'wallet'`, [d.accountId]);
  if (Number(bal?.wallet ?? 0) < d.micros) return false;
  const rows = transfer({ txn: d.txn, accountId: d.accountId, from: 'wallet', to: 'revenue', amount: d.micros, kind: d.kind, ref: d.ref });
  const inserted = await run<unknown>(`${INSERT_LEDGER} returning id`, [JSON.stringify(rows)]);
  return inserted.length > 0 ? 'new' : 'before';
}
