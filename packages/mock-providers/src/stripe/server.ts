// A local fake of the Stripe endpoints the gateway uses, speaking Stripe's wire format: form
// bodies in, JSON objects out, bearer secret keys, Stripe's error envelope, and webhooks
// signed the way Stripe signs them (`Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of
// "t.payload">`, one v1 per active secret while a secret is rolled).
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listen, readBody, sendJson } from '../http.ts';
import { decodeForm } from './form.ts';
import { MIN_CHARGE_CENTS, StripeBilling, StripeFault, type Obj } from './billing.ts';

export interface StripeEvent {
  id: string;
  object: 'event';
  type: string;
  created: number;
  api_version: string;
  livemode: false;
  data: { object: Record<string, unknown> };
}

export interface Delivery {
  status: number;
  body: string;
}

export interface StripeMock {
  url: string;
  host: string;
  port: number;
  /** Every API request the fake received: method, path and decoded form body. */
  requests: { method: string; path: string; body: Record<string, unknown>; idempotencyKey: string | undefined }[];
  /** Checkout sessions created, by id. */
  sessions: Map<string, Record<string, unknown>>;
  /** Payment intents created (off-session charges), by id. */
  paymentIntents: Map<string, Record<string, unknown>>;
  /** Every event the fake raised, oldest first (a test may deliver one again). */
  events: StripeEvent[];
  /** Payment methods whose off-session charges are declined (`card_declined`, as Stripe answers a failed off-session confirm). */
  declined: Set<string>;
  /** Whether a payment intent's outcome event is delivered to `webhookUrl` on its own (default true). */
  autoDeliver: boolean;
  /** Customers, prices, subscriptions, invoices and invoice items (billing.ts). */
  billing: StripeBilling;
  /** Ends a subscription's period: renews it (billing its card; declined → past due) or, set to cancel, ends it. */
  cycle(subscriptionId: string): Record<string, unknown>;
  /** The dunning's next attempt to pay an open invoice. */
  retry(invoiceId: string): Record<string, unknown>;
  /** Where webhooks go (the gateway's POST /v1/billing/webhook). */
  webhookUrl: string | null;
  /** The endpoint's signing secrets; more than one while a secret is rolled (each signs a v1). */
  secrets: string[];
  /** The gateway's settings for talking to this fake: its secret key, the webhook signing secrets and its API URL. */
  gatewayEnv(): { STRIPE_SECRET_KEY: string; STRIPE_WEBHOOK_SECRET: string; STRIPE_API_URL: string };
  /** Pays a checkout session as a customer would on the hosted page; returns the event Stripe would send. */
  pay(sessionId: string): StripeEvent;
  /** The Stripe-Signature header for a payload, signed with every secret (or the given ones) at `timestamp`. */
  sign(payload: string, opts?: { timestamp?: number; secrets?: string[] }): string;
  /** Delivers an event to the webhook endpoint, signed now (or as told), and returns the answer. */
  deliver(event: StripeEvent, opts?: { timestamp?: number; secrets?: string[]; header?: string }): Promise<Delivery>;
  close(): Promise<void>;
}

const API_VERSION = '2025-11-17.clover';
const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

function stripeError(res: ServerResponse, status: number, type: string, message: string, param?: string): void {
  sendJson(res, status, { error: { type, message, ...(param ? { param } : {}) } });
}

export async function startStripeMock(opts: { secretKey: string; secrets: string[]; port?: number }): Promise<StripeMock> {
  /** The metadata each checkout session's payment intent will carry (payment_intent_data.metadata). */
  const piMetadata = new Map<string, Record<string, unknown>>();
  const mock: StripeMock = {
    url: '',
    host: '127.0.0.1',
    port: 0,
    requests: [],
    sessions: new Map(),
    paymentIntents: new Map(),
    events: [],
    declined: new Set(),
    autoDeliver: true,
    webhookUrl: null,
    secrets: [...opts.secrets],
    gatewayEnv: () => ({ STRIPE_SECRET_KEY: opts.secretKey, STRIPE_WEBHOOK_SECRET: mock.secrets.join(','), STRIPE_API_URL: mock.url }),
    billing: null as unknown as StripeBilling,
    cycle: (sid) => mock.billing.cycle(sid),
    retry: (iid) => mock.billing.retry(iid),
    pay(sessionId) {
      const s = mock.sessions.get(sessionId);
      if (!s) throw new Error(`no checkout session ${sessionId}`);
      // as with setup_future_usage=off_session: the card is saved to the customer for later off-session charges
      const customer = (s.customer as string | null) ?? id('cus');
      const amount = Number(s.amount_total);
      const pi = { id: id('pi'), object: 'payment_intent', amount, amount_received: amount, currency: s.currency, customer, payment_method: id('pm'), setup_future_usage: 'off_session', metadata: piMetadata.get(sessionId) ?? {}, status: 'succeeded', created: now(), livemode: false };
      mock.paymentIntents.set(pi.id, pi);
      mock.billing.ensureCustomer(customer, pi.payment_method);
      Object.assign(s, { status: 'complete', payment_status: 'paid', payment_intent: pi.id, customer });
      return event('checkout.session.completed', s);
    },
    sign(payload, o = {}) {
      const t = o.timestamp ?? now();
      const v1 = (o.secrets ?? mock.secrets).map((secret) => `v1=${createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex')}`);
      return [`t=${t}`, ...v1].join(',');
    },
    async deliver(e, o = {}) {
      if (!mock.webhookUrl) throw new Error('no webhook endpoint set');
      const payload = JSON.stringify(e, null, 2); // Stripe sends pretty-printed JSON; the signature covers those exact bytes
      const header = o.header ?? mock.sign(payload, o);
      const r = await fetch(mock.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' }, body: payload });
      return { status: r.status, body: await r.text() };
    },
    close: async () => closeServer(server),
  };

  function event(type: string, object: Record<string, unknown>, previous?: Record<string, unknown>): StripeEvent {
    const e: StripeEvent = { id: id('evt'), object: 'event', type, created: now(), api_version: API_VERSION, livemode: false, data: { object: structuredClone(object), ...(previous ? { previous_attributes: previous } : {}) } };
    mock.events.push(e);
    return e;
  }

  mock.billing = new StripeBilling({
    event(type, object, previous) {
      const e = event(type, object, previous);
      if (mock.autoDeliver && mock.webhookUrl) setImmediate(() => void mock.deliver(e).catch(() => undefined));
    },
    charge(a) {
      const declined = mock.declined.has(a.paymentMethod);
      const pi: Obj = { id: id('pi'), object: 'payment_intent', amount: a.amount, amount_received: declined ? 0 : a.amount, currency: a.currency, customer: a.customer, payment_method: a.paymentMethod, description: a.description, metadata: a.metadata, status: declined ? 'requires_payment_method' : 'succeeded', last_payment_error: declined ? { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' } : null, created: now(), livemode: false };
      mock.paymentIntents.set(pi.id, pi);
      const e = event(declined ? 'payment_intent.payment_failed' : 'payment_intent.succeeded', pi);
      if (mock.autoDeliver && mock.webhookUrl) setImmediate(() => void mock.deliver(e).catch(() => undefined));
      return pi;
    },
  });

  /** Stripe replays the first answer to a POST with the same Idempotency-Key (for 24 hours). */
  const idempotent = new Map<string, { status: number; body: unknown }>();

  function checkoutSession(body: Record<string, unknown>): Record<string, unknown> {
    const items = (body.line_items as Record<string, any>[] | undefined) ?? [];
    if (!body.success_url) throw Object.assign(new Error('Missing required param: success_url.'), { param: 'success_url' });
    if (body.mode !== 'payment') throw Object.assign(new Error('Only mode=payment is supported by this fake.'), { param: 'mode' });
    const amount = items.reduce((sum, i) => sum + Number(i.price_data?.unit_amount ?? 0) * Number(i.quantity ?? 1), 0);
    if (!Number.isInteger(amount) || amount < 50) throw Object.assign(new Error('The Checkout Session\'s total amount due must add up to at least $0.50 usd'), { param: 'line_items' });
    const sid = id('cs');
    const session: Record<string, unknown> = {
      id: sid,
      object: 'checkout.session',
      amount_subtotal: amount,
      amount_total: amount,
      currency: String(items[0]?.price_data?.currency ?? 'usd'),
      client_reference_id: body.client_reference_id ?? null,
      customer: body.customer ?? null,
      customer_creation: body.customer_creation ?? null,
      livemode: false,
      metadata: body.metadata ?? {},
      mode: 'payment',
      payment_intent: null,
      payment_status: 'unpaid',
      status: 'open',
      success_url: body.success_url,
      cancel_url: body.cancel_url ?? null,
      created: now(),
      expires_at: now() + 24 * 3600,
      url: `${mock.url}/c/pay/${sid}`,
    };
    mock.sessions.set(sid, session);
    piMetadata.set(sid, ((body.payment_intent_data as Record<string, unknown> | undefined)?.metadata as Record<string, unknown> | undefined) ?? {});
    return session;
  }

  /** A payment intent; with confirm=true and off_session=true, charged at once against the saved card (or declined). */
  function paymentIntent(body: Record<string, unknown>): { status: number; body: Record<string, unknown> } {
    const amount = Number(body.amount);
    if (!Number.isInteger(amount)) throw Object.assign(new Error(`Invalid integer: ${String(body.amount)}`), { param: 'amount' });
    if (amount < MIN_CHARGE_CENTS) throw new StripeFault(400, 'invalid_request_error', 'Amount must be at least $0.50 usd', 'amount', { code: 'amount_too_small' });
    if (body.off_session === 'true' && body.confirm !== 'true') throw Object.assign(new Error('off_session can only be used with confirm=true.'), { param: 'off_session' });
    if (body.confirm === 'true' && (!body.customer || !body.payment_method)) throw Object.assign(new Error('An off-session payment needs customer and payment_method.'), { param: 'payment_method' });
    const declined = body.confirm === 'true' && mock.declined.has(String(body.payment_method));
    const pi: Record<string, unknown> = {
      id: id('pi'),
      object: 'payment_intent',
      amount,
      amount_received: body.confirm === 'true' && !declined ? amount : 0,
      currency: body.currency ?? 'usd',
      customer: body.customer ?? null,
      payment_method: body.payment_method ?? null,
      metadata: body.metadata ?? {},
      status: body.confirm === 'true' ? (declined ? 'requires_payment_method' : 'succeeded') : 'requires_confirmation',
      last_payment_error: declined ? { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' } : null,
      created: now(),
      livemode: false,
    };
    mock.paymentIntents.set(pi.id as string, pi);
    const outcome = pi.status === 'succeeded' ? 'payment_intent.succeeded' : declined ? 'payment_intent.payment_failed' : null;
    if (outcome) {
      const e = event(outcome, pi);
      if (mock.autoDeliver && mock.webhookUrl) setImmediate(() => void mock.deliver(e).catch(() => undefined));
    }
    // a declined off-session confirm answers 402 card_error carrying the payment intent, as Stripe does
    if (declined) return { status: 402, body: { error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.', param: '', payment_intent: pi } } };
    return { status: 200, body: pi };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname.startsWith('/c/pay/')) {
      const s = mock.sessions.get(url.pathname.slice('/c/pay/'.length));
      res.writeHead(s ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(s ? `<!doctype html><title>Pay</title><p>Pay ${(Number(s.amount_total) / 100).toFixed(2)} ${String(s.currency).toUpperCase()}</p>` : 'not found');
      return;
    }
    if (req.headers.authorization !== `Bearer ${opts.secretKey}`) {
      return stripeError(res, 401, 'invalid_request_error', 'Invalid API Key provided.');
    }
    const body = decodeForm(await readBody(req));
    const idem = req.headers['idempotency-key'];
    mock.requests.push({ method: req.method ?? '', path: url.pathname, body, idempotencyKey: typeof idem === 'string' ? idem : undefined });
    // every POST with an Idempotency-Key: the first answer (success or error) is replayed
    const key = req.method === 'POST' && typeof idem === 'string' ? `${url.pathname}:${idem}` : null;
    const earlier = key ? idempotent.get(key) : undefined;
    if (earlier) return sendJson(res, earlier.status, earlier.body, { 'idempotent-replayed': 'true' });
    const answer = (status: number, b: unknown) => {
      if (key) idempotent.set(key, { status, body: b });
      sendJson(res, status, b);
    };
    try {
      const query = decodeForm(url.search.slice(1));
      const billed = routeBilling(req.method ?? '', url.pathname, { ...query, ...body });
      if (billed) return answer(200, expand(billed, query.expand ?? body.expand));
      if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') return answer(200, checkoutSession(body));
      if (req.method === 'POST' && url.pathname === '/v1/payment_intents') {
        const r = paymentIntent(body);
        return answer(r.status, r.body);
      }
      const pim = /^\/v1\/payment_intents\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && pim) {
        const pi = mock.paymentIntents.get(pim[1]!);
        return pi ? sendJson(res, 200, pi) : stripeError(res, 404, 'invalid_request_error', `No such payment_intent: '${pim[1]}'`, 'id');
      }
      const m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && m) {
        const s = mock.sessions.get(m[1]!);
        return s ? sendJson(res, 200, s) : stripeError(res, 404, 'invalid_request_error', `No such checkout.session: '${m[1]}'`, 'id');
      }
      return stripeError(res, 404, 'invalid_request_error', `Unrecognized request URL (${req.method}: ${url.pathname}).`);
    } catch (err) {
      if (err instanceof StripeFault) return answer(err.status, { error: { type: err.type, message: err.message, ...(err.param !== undefined ? { param: err.param } : {}), ...err.extra } });
      const e = err as Error & { param?: string };
      return answer(400, { error: { type: 'invalid_request_error', message: e.message, ...(e.param ? { param: e.param } : {}) } });
    }
  }

  /** The billing routes: an object, or null when the path is not one of them. */
  function routeBilling(method: string, path: string, b: Obj): Obj | null {
    const B = mock.billing;
    const one = /^\/v1\/(customers|subscriptions|invoices)\/([^/]+)(?:\/(finalize|pay))?$/.exec(path);
    if (method === 'POST' && path === '/v1/customers') return B.createCustomer(b);
    if (method === 'POST' && path === '/v1/prices') return B.createPrice(b);
    if (method === 'GET' && path === '/v1/prices') return B.listPrices(b);
    if (method === 'POST' && path === '/v1/subscriptions') return B.createSubscription(b);
    if (method === 'POST' && path === '/v1/invoices') return B.createInvoice(b);
    if (method === 'POST' && path === '/v1/invoiceitems') return B.createInvoiceItem(b);
    if (!one) return null;
    const [, kind, oid, verb] = one as unknown as [string, string, string, string | undefined];
    if (kind === 'customers') return method === 'GET' ? B.getCustomer(oid) : method === 'POST' ? B.updateCustomer(oid, b) : null;
    if (kind === 'subscriptions') return method === 'GET' ? B.getSubscription(oid) : method === 'POST' ? B.updateSubscription(oid, b) : method === 'DELETE' ? B.cancelSubscription(oid) : null;
    if (method === 'GET' && !verb) return B.getInvoice(oid);
    if (method === 'POST' && verb === 'finalize') return B.finalizeInvoice(oid);
    if (method === 'POST' && verb === 'pay') return B.payInvoice(oid, b);
    return null;
  }

  /** `expand[]=latest_invoice` on a subscription: the invoice object in place of its id (a copy; the stored one keeps the id). */
  function expand(o: Obj, paths: unknown): Obj {
    const list = Array.isArray(paths) ? paths : paths && typeof paths === 'object' ? Object.values(paths) : [];
    if (!list.includes('latest_invoice') || typeof o.latest_invoice !== 'string') return o;
    return { ...o, latest_invoice: mock.billing.invoices.get(o.latest_invoice) ?? o.latest_invoice };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => stripeError(res, 500, 'api_error', 'The fake failed.'));
  });
  mock.port = await listen(server, opts.port ?? 0, '127.0.0.1');
  mock.url = `http://127.0.0.1:${mock.port}`;
  return mock;
}
