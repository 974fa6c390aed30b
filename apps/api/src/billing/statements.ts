// Statements (spec 2.7, 4.4; design §5, §9): per billing period (a calendar month, UTC), what
// the tenant's calls saved by source, the fee_rate, the fees and platform-key usage charged,
// and the amount due. Built from the stored records: savings and per-call charges from the call
// records, the amount due from the ledger's call charges (which the call records' charges must
// equal, since both are written in one line by the meter). A statement is reproducible from
// GET /v1/calls (its `saving`, `saving_source` and `charge`). Paid production's fee is not in
// the amount due: it is invoiced on the payment processor once the period ends, and `invoice`
// shows that invoice's line and what was paid (fee-invoices.ts).
import type { Database } from '../db/database.ts';
import type { Meter } from '../meter/meter.ts';
import { usd } from '../wire/usage.ts';
import { periodBounds, periodOf } from './month.ts';
import { invoiceView, type FeeInvoices } from './fee-invoices.ts';

export const SAVING_SOURCES = ['cache', 'routing', 'ttc', 'trace'] as const;

/** Periods a statement query may span at once. */
const MAX_PERIODS = 36;

function periodsBetween(from: string, to: string): string[] {
  const out: string[] = [];
  let p = from;
  while (p <= to && out.length < MAX_PERIODS) {
    out.push(p);
    p = periodOf(periodBounds(p).end);
  }
  return out;
}

export class Statements {
  readonly #db: Database;
  readonly #meter: Meter;
  readonly #feeRate: number;
  readonly #feeInvoices: FeeInvoices | null;

  constructor(deps: { db: Database; meter: Meter; feeRate: number; feeInvoices?: FeeInvoices }) {
    this.#db = deps.db;
    this.#meter = deps.meter;
    this.#feeRate = deps.feeRate;
    this.#feeInvoices = deps.feeInvoices ?? null;
  }

  /** Statements for every period from `from`'s month to `to`'s (default: this month), newest first. */
  async list(accountId: string, q: { from?: string | undefined; to?: string | undefined }) {
    await this.#meter.flush();
    const to = q.to ? periodOf(new Date(q.to)) : periodOf(new Date());
    const from = q.from ? periodOf(new Date(q.from)) : to;
    const out = [];
    for (const period of periodsBetween(from, to).reverse()) out.push(await this.#statement(accountId, period));
    return out;
  }

  /**
   * The savings ledger: per period, oldest first, what the calls saved by source, the fee taken
   * from it and what the tenant kept, with running totals; the same figures as the statements.
   */
  async savingsLedger(accountId: string, q: { from?: string | undefined; to?: string | undefined }) {
    const statements = (await this.list(accountId, q)).reverse();
    let saved = 0;
    let fees = 0;
    const data = statements.map((st) => {
      saved += st.micros.savings.total;
      fees += st.micros.fees;
      return {
        period: st.period,
        from: st.from,
        to: st.to,
        closed: st.closed,
        calls: st.calls,
        savings: st.savings,
        fee_rate: st.fee_rate,
        fee_usd: st.fees_usd,
        net_saving_usd: usd(st.micros.savings.total - st.micros.fees),
        cumulative_saving_usd: usd(saved),
        cumulative_fee_usd: usd(fees),
        cumulative_net_saving_usd: usd(saved - fees),
      };
    });
    return { data, totals: { saving_usd: usd(saved), fee_usd: usd(fees), net_saving_usd: usd(saved - fees) } };
  }

  async #statement(accountId: string, period: string) {
    const { start, end } = periodBounds(period);
    const sql = this.#db.em().getConnection();
    const rows = (await sql.execute(
      `select coalesce(saving_source, '') as source, count(*)::int as calls, sum(saving_micros)::text as saving, sum(baseline_micros)::text as baseline,
              sum(actual_micros)::text as actual, sum(coalesce((detail->'billing'->>'fee_micros')::bigint, 0))::text as fees,
              sum(coalesce((detail->'billing'->>'usage_micros')::bigint, 0))::text as usage,
              sum(coalesce((detail->'billing'->>'fee_micros')::bigint, 0)) filter (where detail->'billing'->>'fee_invoiced' = '1')::text as invoiced
         from call_records where account_id = ? and created_at >= ? and created_at < ? group by 1`,
      [accountId, start.toISOString(), end.toISOString()],
    )) as { source: string; calls: number; saving: string; baseline: string; actual: string; fees: string; usage: string; invoiced: string | null }[];
    const [charged] = (await sql.execute(
      `select coalesce(sum(-amount_micros), 0)::text as due,
              coalesce(sum(-amount_micros) filter (where book = 'dev_allowance'), 0)::text as from_allowance,
              coalesce(sum(-amount_micros) filter (where book = 'wallet'), 0)::text as from_wallet
         from ledger_entries where account_id = ? and kind = 'call' and book in ('wallet', 'dev_allowance') and created_at >= ? and created_at < ?`,
      [accountId, start.toISOString(), end.toISOString()],
    )) as { due: string; from_allowance: string; from_wallet: string }[];
    const sum = (f: (r: (typeof rows)[number]) => string) => rows.reduce((n, r) => n + Number(f(r)), 0);
    const bySource = Object.fromEntries(SAVING_SOURCES.map((src) => [src, Number(rows.find((r) => r.source === src)?.saving ?? 0)])) as Record<(typeof SAVING_SOURCES)[number], number>;
    const savingsMicros = SAVING_SOURCES.reduce((n, src) => n + bySource[src], 0);
    const fees = sum((r) => r.fees);
    const usage = sum((r) => r.usage);
    const due = Number(charged!.due);
    const invoiced = sum((r) => r.invoiced ?? '0');
    const invoice = invoiceView(await this.#feeInvoices?.row(accountId, period));
    return {
      period,
      from: start.toISOString(),
      to: end.toISOString(),
      closed: end.getTime() <= Date.now(),
      fee_rate: this.#feeRate,
      calls: sum((r) => String(r.calls)),
      savings: { ...Object.fromEntries(SAVING_SOURCES.map((src) => [src, usd(bySource[src])])), total: usd(savingsMicros) },
      baseline_usd: usd(sum((r) => r.baseline)),
      actual_usd: usd(sum((r) => r.actual)),
      fees_usd: usd(fees),
      fees_invoiced_usd: usd(invoiced),
      invoice,
      usage_usd: usd(usage),
      amount_due_usd: usd(due),
      paid_from: { dev_allowance_usd: usd(Number(charged!.from_allowance)), wallet_usd: usd(Number(charged!.from_wallet)) },
      micros: { savings: { ...bySource, total: savingsMicros }, fees, fees_invoiced: invoiced, usage, amount_due: due },
    };
  }
}
