// A managed subscription's state as the processor says it (issue 35). Webhooks only tell that
// something changed: under the subscription row's lock the current subscription is read back
// from Stripe and written, so events applied in any order, twice, or on two replicas at once
// leave the row as Stripe has it now (a later lock holder reads a later state). Each event id
// is recorded in the same transaction, so an event is applied once.
//
// Stripe's status → ours: active/trialing → `active` (`cancelled` while set to end at the
// period's end), past_due/unpaid/paused → `past_due`, incomplete → `incomplete`, canceled and
// incomplete_expired → `lapsed` (the workflow leaves production). A past-due subscription keeps
// its production for the grace period from its first failed payment (`paused_from`); Stripe's
// `unpaid` (its retries spent) pauses at once. Paid again, it is active and unpaused.
import type Stripe from 'stripe';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlIn } from '../db/sql-in.ts';

export type LocalStatus = 'pending' | 'incomplete' | 'active' | 'cancelled' | 'past_due' | 'lapsed';

export interface LocalState {
  status: LocalStatus;
  stripeStatus: string;
  periodEnd: Date;
  cancelAtPeriodEnd: boolean;
  pastDueSince: Date | null;
  pausedFrom: Date | null;
}

export function localState(sub: Stripe.Subscription, pastDueSince: Date | null, graceS: number, now = new Date()): LocalState {
  const end = sub.items.data[0]?.current_period_end ?? sub.billing_cycle_anchor;
  let status: LocalStatus;
  if (sub.status === 'active' || sub.status === 'trialing') status = sub.cancel_at_period_end ? 'cancelled' : 'active';
  else if (sub.status === 'past_due' || sub.status === 'unpaid' || sub.status === 'paused') status = 'past_due';
  else if (sub.status === 'incomplete') status = 'incomplete';
  else status = 'lapsed';
  const since = status === 'past_due' ? (pastDueSince ?? now) : null;
  const pausedFrom = since === null ? null : sub.status === 'past_due' ? new Date(since.getTime() + graceS * 1000) : now;
  return { status, stripeStatus: sub.status, periodEnd: new Date(end * 1000), cancelAtPeriodEnd: sub.cancel_at_period_end, pastDueSince: since, pausedFrom };
}

/** The subscription an event is about: its own id, or the subscription behind an invoice. */
export function subscriptionOf(event: Stripe.Event): string | null {
  if (event.type.startsWith('customer.subscription.')) return (event.data.object as Stripe.Subscription).id;
  if (!event.type.startsWith('invoice.')) return null;
  const inv = event.data.object as Stripe.Invoice;
  const sub = inv.parent?.subscription_details?.subscription;
  return typeof sub === 'string' ? sub : (sub?.id ?? null);
}

interface Row {
  workflow_id: string;
  account_id: string;
  status: LocalStatus;
  past_due_since: Date | string | null;
  paused_from: Date | string | null;
}

export interface Written {
  workflowId: string;
  accountId: string;
  /** Whether production's standing changed (lapsed, paused or unpaused): every replica reloads. */
  changed: boolean;
}

/**
 * Writes the processor's subscription onto its row, within `em`'s transaction, the row locked
 * first. `read` fetches the subscription (after the lock, so the newest state wins); the create
 * and update answers pass what Stripe just answered.
 */
export async function writeState(em: EntityManager, stripeId: string, read: () => Promise<Stripe.Subscription>, graceS: number): Promise<Written | null> {
  const run = sqlIn(em);
  const [row] = await run<Row>('select workflow_id, account_id, status, past_due_since, paused_from from subscriptions where stripe_subscription_id = ? for update', [stripeId]);
  if (!row) return null;
  const sub = await read();
  const s = localState(sub, row.past_due_since ? new Date(row.past_due_since) : null, graceS);
  await run(
    `update subscriptions set status = ?, stripe_status = ?, current_period_end = ?, cancel_at_period_end = ?, past_due_since = ?, paused_from = ?, synced_at = now()
      where stripe_subscription_id = ?`,
    [s.status, s.stripeStatus, s.periodEnd.toISOString(), s.cancelAtPeriodEnd, s.pastDueSince?.toISOString() ?? null, s.pausedFrom?.toISOString() ?? null, stripeId],
  );
  let changed = (row.paused_from === null) !== (s.pausedFrom === null) || (row.status === 'lapsed') !== (s.status === 'lapsed');
  if (s.status === 'lapsed' && row.status !== 'lapsed') {
    await run(`update workflows set stage = 'tuning' where id = ? and stage = 'production'`, [row.workflow_id]);
    changed = true;
  }
  return { workflowId: row.workflow_id, accountId: row.account_id, changed };
}
