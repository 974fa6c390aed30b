// The managed Production plan (issue 35): one recurring Stripe price per plan, a month per
// workflow, found by its lookup key (so every replica and every restart uses the same price)
// and created on first use. The key names the amount, so a changed MANAGED_PLAN_PRICE_USD is a
// new price; existing subscriptions keep the one they were sold on.
import type Stripe from 'stripe';

export interface Plan {
  priceMicros: number;
  runCap: number;
}

const MICROS_PER_CENT = 10_000;

export const planCents = (plan: Plan) => Math.round(plan.priceMicros / MICROS_PER_CENT);
export const planLookupKey = (plan: Plan) => `managed_production_monthly_usd_${planCents(plan)}`;

export class PlanPrice {
  readonly #plan: Plan;
  #id: Promise<string> | null = null;

  constructor(plan: Plan) {
    this.#plan = plan;
  }

  /** The price's id on the processor (listed by lookup key, else created with it; remembered once found). */
  id(stripe: Stripe): Promise<string> {
    this.#id ??= this.#find(stripe).catch((err: unknown) => {
      this.#id = null;
      throw err;
    });
    return this.#id;
  }

  async #find(stripe: Stripe): Promise<string> {
    const key = planLookupKey(this.#plan);
    const found = await stripe.prices.list({ lookup_keys: [key], active: true, limit: 1 });
    if (found.data[0]) return found.data[0].id;
    try {
      const price = await stripe.prices.create(
        {
          currency: 'usd',
          unit_amount: planCents(this.#plan),
          recurring: { interval: 'month' },
          lookup_key: key,
          nickname: 'Managed Production',
          product_data: { name: 'Managed Production (per workflow)' },
          metadata: { run_cap: String(this.#plan.runCap) },
        },
        { idempotencyKey: `plan-price:${key}` },
      );
      return price.id;
    } catch (err) {
      // another replica created it first: its price holds the key
      const again = await stripe.prices.list({ lookup_keys: [key], active: true, limit: 1 });
      if (again.data[0]) return again.data[0].id;
      throw err;
    }
  }
}
