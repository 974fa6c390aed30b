// Reservations against a tenant's money (design §11): before dispatch the call's maximum cost
// is taken from the hot counters (allowance first, then wallet, and the month's spend against
// the cap) in one atomic step; once metered, the call's actual charge is written to the ledger
// in the call's own write-ahead line and the counters are settled to it. A call the counters
// cannot cover is refused with its 402 before any vendor is paid.
import { ApiError } from '../errors.ts';
import type { Database } from '../db/database.ts';
import type { HotStore } from '../hot/store.ts';
import type { Logger } from '../logger.ts';
import type { LedgerRow } from '../meter/rows.ts';
import type { TopicSettings } from '../settings/topic-settings.ts';
import type { AlertSettings } from '@optimizer/schema';
import { usd } from '../wire/usage.ts';
import { callCharge, INSERT_LEDGER, transfer } from './ledger.ts';
import { currentPeriod, periodBounds } from './month.ts';
import type { LimitCharge, RateLimits } from '../limits/rate-limits.ts';
import { windowOf, type RateAdjust } from '../hot/rate-window.ts';

/** What one call holds until it is settled: taken from each book, and counted against the month's spend. */
export interface Reservation {
  accountId: string;
  period: string;
  allowance: number;
  wallet: number;
  spend: number;
  open: boolean;
  /** Token counters the call was charged on (its prompt's bound), settled to the tokens it used. */
  tokens: { key: string; window: number; reserved: number }[];
}

/** A call's charge once metered: what its platform-key attempts cost plus the fee; spend adds what it paid vendors on its own keys. */
export interface ChargeInput {
  callId: string;
  at: Date;
  charge: number;
  spend: number;
  /** A charge settled apart from the call's own (its learning): its ledger transactions are named by it. */
  part?: string;
}

const keyOf = (accountId: string) => `budget:${accountId}`;

export class Budget {
  readonly #db: Database;
  readonly #hot: HotStore;
  readonly #alerts: TopicSettings<AlertSettings>;
  readonly #logger: Logger;
  readonly #allowanceMicros: number;
  readonly #limits: RateLimits | undefined;

  constructor(deps: { db: Database; hot: HotStore; alerts: TopicSettings<AlertSettings>; logger: Logger; devAllowanceMicros: number; limits?: RateLimits }) {
    this.#limits = deps.limits;
    this.#db = deps.db;
    this.#hot = deps.hot;
    this.#alerts = deps.alerts;
    this.#logger = deps.logger;
    this.#allowanceMicros = deps.devAllowanceMicros;
  }

  /**
   * Takes `charge` (allowance first) and `spend` (against the cap) for one call and counts it on
   * its rate limits (`rate`), all or nothing, or refuses with the 429 or 402 that says why.
   */
  async reserve(accountId: string, charge: number, spend: number, rate: readonly LimitCharge[] = []): Promise<Reservation> {
    const now = Date.now();
    const period = currentPeriod(now);
    const capUsd = this.#alerts.get(accountId).spend_cap_usd;
    const cap = capUsd === null ? null : Math.round(capUsd * 1e6);
    const op = { kind: 'reserve', charge, spend, cap, period, ...(rate.length > 0 ? { rate: { now, charges: rate } } : {}) } as const;
    let answer = await this.#hot.budget(keyOf(accountId), op);
    if (answer.kind === 'uninit') {
      await this.load(accountId, period);
      answer = await this.#hot.budget(keyOf(accountId), op);
    }
    if (answer.kind === 'ok') {
      const tokens = rate.filter((c) => c.metric === 'tokens').map((c) => ({ key: c.key, window: windowOf(now), reserved: c.cost }));
      return { accountId, period, allowance: answer.allowance, wallet: answer.wallet, spend, open: true, tokens };
    }
    if (answer.kind === 'uninit') throw new ApiError('unavailable', 'The billing counters could not be loaded; retry shortly.');
    if (answer.kind === 'limited') throw this.#limits!.refusal(rate[answer.index]!, answer.waitMs);
    const need = usd(charge);
    if (answer.reason === 'spend_cap_reached') {
      throw new ApiError('spend_cap_reached', `This call may cost up to ${usd(spend)} USD, which would pass the monthly spend cap of ${capUsd} USD (${usd(answer.spent)} USD spent or reserved this month): raise spend_cap_usd at PUT /v1/settings/alerts.`, {
        extra: { cap: capUsd, used: usd(answer.spent) },
      });
    }
    if (answer.reason === 'wallet_empty') {
      throw new ApiError('wallet_empty', `The wallet cannot cover this call's maximum cost (${need} USD is reserved before dispatch, then settled to the actual): top up at POST /v1/billing/topup, or store provider keys for the vendor so only the fee is charged.`);
    }
    throw new ApiError('dev_allowance_exhausted', `The dev allowance cannot cover this call's maximum cost (${need} USD is reserved before dispatch): top up the wallet at POST /v1/billing/topup to go on.`);
  }

  /**
   * Settles a reservation to the call's actual charge: the ledger legs to record with the call
   * (allowance first, as reserved), and the counters moved by the difference. Once per reservation.
   */
  settle(res: Reservation, c: ChargeInput, tokensUsed = 0): LedgerRow[] {
    if (!res.open) return [];
    res.open = false;
    const charge = Math.max(0, Math.round(c.charge));
    const fromAllowance = Math.min(charge, res.allowance);
    const fromWallet = charge - fromAllowance;
    this.#move(res, res.allowance - fromAllowance, res.wallet - fromWallet, Math.round(c.spend) - res.spend, tokensUsed);
    return callCharge(c.callId, res.accountId, fromAllowance, fromWallet, c.at, c.part);
  }

  /**
   * Carves up to `charge` (allowance first, as reserved) and `spend` out of a call's reservation into
   * a reservation of its own, settled apart: a routed call's learning, which runs after the call is
   * metered and answered. The parent keeps the rest and its token counters.
   */
  split(res: Reservation, charge: number, spend: number): Reservation {
    const allowance = Math.min(res.allowance, Math.max(0, charge));
    const wallet = Math.min(res.wallet, Math.max(0, charge) - allowance);
    const spent = Math.min(res.spend, Math.max(0, spend));
    res.allowance -= allowance;
    res.wallet -= wallet;
    res.spend -= spent;
    return { accountId: res.accountId, period: res.period, allowance, wallet, spend: spent, open: res.open, tokens: [] };
  }

  /** Gives a reservation back whole (a call that was never metered). */
  release(res: Reservation): void {
    if (!res.open) return;
    res.open = false;
    this.#move(res, res.allowance, res.wallet, -res.spend, 0);
  }

  /** Moves the counters by what settling found, the token counters to `tokensUsed`, in one step. */
  #move(res: Reservation, allowance: number, wallet: number, spent: number, tokensUsed: number): void {
    const rate: RateAdjust[] = res.tokens.map((t) => ({ key: t.key, window: t.window, delta: Math.round(tokensUsed) - t.reserved })).filter((a) => a.delta !== 0);
    if (allowance === 0 && wallet === 0 && spent === 0 && rate.length === 0) return;
    this.#hot.budget(keyOf(res.accountId), { kind: 'settle', allowance, wallet, period: res.period, spent, ...(rate.length > 0 ? { rate } : {}) }).catch((err: unknown) => {
      // the ledger (in the call's write-ahead line) holds the truth; the counter stays conservative
      this.#logger.warn({ err, account: res.accountId }, 'could not settle a reservation on the hot counters');
    });
  }

  /** Money that reached the ledger outside a call (a top-up, a credit): moves the counters of a tenant already loaded. */
  async credited(accountId: string, walletMicros: number, allowanceMicros = 0): Promise<void> {
    await this.#hot.budget(keyOf(accountId), { kind: 'credit', wallet: walletMicros, allowance: allowanceMicros, funded: walletMicros > 0 });
  }

  /**
   * Grants the dev allowance once (idempotent by its transaction id), dated at signup: what the
   * account was promised at signup (billing/signup-allowance.ts; the configured default for
   * accounts made before), and only once its email is confirmed when that was asked. True when
   * this call granted it.
   */
  async grantAllowance(accountId: string): Promise<boolean> {
    const [account] = (await this.#db
      .em()
      .getConnection()
      .execute('select created_at, dev_allowance_micros::text as micros, confirmation_required, email_confirmed_at from accounts where id = ?', [accountId])) as {
      created_at: Date | string;
      micros: string | null;
      confirmation_required: boolean;
      email_confirmed_at: Date | string | null;
    }[];
    if (!account) return false;
    if (account.confirmation_required && account.email_confirmed_at === null) return false;
    const amount = account.micros === null ? this.#allowanceMicros : Number(account.micros);
    if (amount <= 0) return false;
    const at = new Date(account.created_at);
    const rows = transfer({ txn: `allowance:${accountId}`, accountId, from: 'grants', to: 'dev_allowance', amount, kind: 'allowance', at });
    const inserted = (await this.#db.em().getConnection().execute(`${INSERT_LEDGER} returning id`, [JSON.stringify(rows)])) as unknown[];
    return Array.isArray(inserted) && inserted.length > 0;
  }

  /** Loads a tenant's counters from the ledger and the month's call records (once per tenant and month). */
  async load(accountId: string, period: string): Promise<void> {
    await this.grantAllowance(accountId);
    const b = await this.balances(accountId);
    const { start, end } = periodBounds(period);
    const [spent] = (await this.#db
      .em()
      .getConnection()
      .execute(
        `select coalesce(sum(actual_micros + coalesce((detail->'billing'->>'fee_micros')::bigint, 0)), 0)::text as spent
           from call_records where account_id = ? and created_at >= ? and created_at < ?`,
        [accountId, start.toISOString(), end.toISOString()],
      )) as { spent: string }[];
    await this.#hot.budget(keyOf(accountId), { kind: 'init', wallet: b.wallet, allowance: b.allowance, funded: b.funded, period, spent: Number(spent!.spent) });
  }

  /** The ledger's balances (sums of legs) for a tenant's books. */
  async balances(accountId: string): Promise<{ wallet: number; allowance: number; funded: boolean }> {
    const rows = (await this.#db
      .em()
      .getConnection()
      .execute(
        `select book, sum(amount_micros)::text as total, bool_or(kind in ('topup', 'credit') and amount_micros > 0) as funded
           from ledger_entries where account_id = ? and book in ('wallet', 'dev_allowance') group by book`,
        [accountId],
      )) as { book: string; total: string; funded: boolean }[];
    const of = (book: string) => rows.find((r) => r.book === book);
    return { wallet: Number(of('wallet')?.total ?? 0), allowance: Number(of('dev_allowance')?.total ?? 0), funded: of('wallet')?.funded ?? false };
  }
}
