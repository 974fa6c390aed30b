// What a new account gets (docs/decisions.md, "Hostile input"): its dev allowance on the
// platform's keys, and whether that allowance waits for the account's email to be confirmed.
// A platform setting the admin controls (GET/PUT /v1/admin/settings/signup), stored in
// `platform_settings`, held in memory and reloaded on every replica by a notice. Its first value
// comes from BILLING_DEV_ALLOWANCE_USD; an account keeps what it was promised at signup.
import { z } from 'zod';
import type { Database } from '../db/database.ts';
import { PlatformSetting } from '../db/entities.ts';
import type { HotStore } from '../hot/store.ts';
import { NewestRead } from '../hot/newest-read.ts';

export const signupSettingsSchema = z
  .object({
    /** The dev allowance, in USD, granted to each new account on the platform's keys (0: none). */
    dev_allowance_usd: z.number().min(0).max(10_000),
    /** Grant it only once the account has used the confirmation link emailed at signup. */
    require_email_confirmation: z.boolean(),
  })
  .strict();
export type SignupSettingsValue = z.infer<typeof signupSettingsSchema>;

/** A PUT: the fields sent replace theirs, a field left out keeps its value, `null` returns it to its default. */
export const signupSettingsWrite = z
  .object({
    dev_allowance_usd: z.number().min(0).max(10_000).nullable().optional(),
    require_email_confirmation: z.boolean().nullable().optional(),
  })
  .strict();
export type SignupSettingsWrite = z.infer<typeof signupSettingsWrite>;

const TOPIC = 'signup';
const NOTICE = 'platform-settings:signup:changed';

export class SignupSettings {
  readonly #db: Database;
  readonly #hot: HotStore;
  readonly #defaults: SignupSettingsValue;
  #value: SignupSettingsValue;
  /** Overlapping reloads and writes: an older read never replaces a newer one. */
  readonly #reads = new NewestRead();

  constructor(deps: { db: Database; hot: HotStore; defaultAllowanceUsd: number }) {
    this.#db = deps.db;
    this.#hot = deps.hot;
    this.#defaults = { dev_allowance_usd: deps.defaultAllowanceUsd, require_email_confirmation: false };
    this.#value = this.#defaults;
  }

  async start(): Promise<void> {
    await this.#reload();
    await this.#hot.subscribe(NOTICE, () => this.#reload());
  }

  async #reload(): Promise<void> {
    const row = await this.#reads.read(() => this.#db.em().findOne(PlatformSetting, { topic: TOPIC }));
    if (row === undefined) return; // a reload begun later is in memory already
    const stored = signupSettingsSchema.partial().safeParse(row?.settings ?? {});
    this.#value = { ...this.#defaults, ...(stored.success ? stored.data : {}) };
  }

  get(): SignupSettingsValue {
    return this.#value;
  }

  /** The allowance a new account is promised, in micro-dollars. */
  get allowanceMicros(): number {
    return Math.round(this.#value.dev_allowance_usd * 1e6);
  }

  async put(write: SignupSettingsWrite): Promise<SignupSettingsValue> {
    await this.#reload(); // merge onto what another replica may have written since
    const next: SignupSettingsValue = { ...this.#value };
    for (const k of Object.keys(write) as (keyof SignupSettingsWrite)[]) {
      const v = write[k];
      if (v === undefined) continue;
      (next as Record<string, unknown>)[k] = v === null ? this.#defaults[k] : v;
    }
    await this.#db.em().upsert(PlatformSetting, { topic: TOPIC, settings: next, updatedAt: new Date() });
    await this.#reload(); // read back rather than set here: a reload begun before this write is then older, and dropped
    await this.#hot.publish(NOTICE, TOPIC);
    return this.#value;
  }
}
