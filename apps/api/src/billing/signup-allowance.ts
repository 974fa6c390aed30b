// A new account's dev allowance (docs/decisions.md, "Hostile input"): how much it is promised is
// fixed at signup from the admin's setting (tenancy/signup-settings.ts); when the setting asks for
// it, the allowance waits for the account's email to be confirmed. The confirmation token goes
// out by the alert email channel (the outbox, over SMTP); only its keyed hash is stored, and using
// it grants the allowance once.
import { randomBytes } from 'node:crypto';
import type { Outbox } from '../alerts/outbox.ts';
import type { Budget } from './budget.ts';
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { KeyHasher } from '../security/secrets.ts';
import type { AllowancePromiser, SignupPromise } from '../tenancy/accounts.ts';
import type { SignupSettings } from '../tenancy/signup-settings.ts';

type Em = ReturnType<Database['em']>;


export class SignupAllowance implements AllowancePromiser {
  readonly settings: SignupSettings;
  readonly #db: Database;
  readonly #hasher: KeyHasher;
  readonly #budget: Budget;
  readonly #outbox: Outbox;
  readonly #publicUrl: string;

  constructor(deps: { db: Database; hasher: KeyHasher; settings: SignupSettings; budget: Budget; outbox: Outbox; publicUrl: string }) {
    this.#db = deps.db;
    this.#hasher = deps.hasher;
    this.settings = deps.settings;
    this.#budget = deps.budget;
    this.#outbox = deps.outbox;
    this.#publicUrl = deps.publicUrl.replace(/\/+$/, '');
  }

  /** Records, inside the signup's transaction, what the new account is promised under today's setting. */
  async promise(em: Em, accountId: string): Promise<SignupPromise> {
    const s = this.settings.get();
    const micros = Math.round(s.dev_allowance_usd * 1e6);
    // nothing to confirm for when nothing is promised
    const required = s.require_email_confirmation && micros > 0;
    const token = required ? randomBytes(32).toString('base64url') : null;
    await em
      .getConnection()
      .execute('update accounts set dev_allowance_micros = ?, confirmation_required = ?, confirmation_token_hash = ? where id = ?', [
        micros,
        required,
        token ? this.#hasher.hash(token) : null,
        accountId,
      ], 'run', em.getTransactionContext());
    return { confirmationRequired: required, token };
  }

  /** Queues the confirmation email (delivered, and retried, by the alert deliverer). */
  async mail(accountId: string, email: string, token: string): Promise<void> {
    const link = `${this.#publicUrl}/v1/signup/confirm?token=${token}`;
    const usd = this.settings.get().dev_allowance_usd;
    const text = [
      'Welcome to Optimizer.',
      '',
      `Confirm this address to receive your dev allowance on the platform's model keys (up to ${usd} USD):`,
      link,
      '',
      'Or send the token to POST /v1/signup/confirm as {"token": "..."}:',
      token,
      '',
      'If you did not sign up, ignore this email.',
    ].join('\n');
    await this.#outbox.enqueueOnce(`signup-confirm:${accountId}`, [
      { account_id: accountId, channel: 'email', target: email, event_type: 'signup.confirm', body: JSON.stringify({ subject: 'Confirm your email for Optimizer', text }) },
    ]);
  }

  /** Uses a confirmation token: the account's email is confirmed and its allowance granted (once). */
  async confirm(token: string): Promise<{ account_id: string; confirmed: true; dev_allowance_usd: number }> {
    const hash = this.#hasher.hash(token);
    const conn = this.#db.em().getConnection();
    const updated = (await conn.execute(
      'update accounts set email_confirmed_at = now() where confirmation_token_hash = ? and email_confirmed_at is null returning id, dev_allowance_micros::text as micros',
      [hash],
    )) as { id: string; micros: string | null }[];
    if (updated.length === 0) {
      const [done] = (await conn.execute('select id, dev_allowance_micros::text as micros from accounts where confirmation_token_hash = ? and email_confirmed_at is not null', [hash])) as {
        id: string;
        micros: string | null;
      }[];
      if (!done) throw new ApiError('not_found', 'No signup waits for that confirmation token.', { param: 'token' });
      return { account_id: done.id, confirmed: true, dev_allowance_usd: Number(done.micros ?? 0) / 1e6 };
    }
    const { id, micros } = updated[0]!;
    const amount = Number(micros ?? 0);
    if (await this.#budget.grantAllowance(id)) await this.#budget.credited(id, 0, amount);
    return { account_id: id, confirmed: true, dev_allowance_usd: amount / 1e6 };
  }
}
