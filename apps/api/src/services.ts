// The composition root: every long-lived service, built once from the config and
// closed in reverse order.
import { join, resolve } from 'node:path';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { Partitions } from './db/partitions.ts';
import type { HotStore } from './hot/store.ts';
import { MemoryHotStore } from './hot/memory.ts';
import { IdempotencyJournal } from './hot/idempotency-journal.ts';
import { RedisHotStore } from './hot/redis.ts';
import type { Logger } from './logger.ts';
import { Metrics } from './http/metrics.ts';
import type { Tracing } from './telemetry/tracing.ts';
import { otelOptions } from './telemetry/settings.ts';
import { Meter } from './meter/meter.ts';
import { Envelope } from './security/envelope.ts';
import { loadMasterKey } from './security/master-key.ts';
import { KeyHasher } from './security/secrets.ts';
import { Catalog, parseUnknownModelPrice } from './catalog/catalog.ts';
import { Idempotency } from './pipeline/idempotency.ts';
import { CallViews } from './reporting/calls.ts';
import { Outbound, systemResolver, type Resolver } from './providers/outbound.ts';
import { AllowList } from './security/address-guard.ts';
import { TenantOutbound } from './providers/tenant-outbound.ts';
import { Connections } from './connections/connections.ts';
import { ManagedAgents } from './managed/managed-agents.ts';
import { RunStore } from './managed/run-store.ts';
import { ProviderRegistry } from './providers/registry.ts';
import { CircuitBreaker } from './providers/circuit-breaker.ts';
import { CustomProviders } from './providers/custom-providers.ts';
import { Optimizer } from './optimizer/optimizer.ts';
import { RoutingSettings } from './optimizer/settings.ts';
import { Outcomes } from './optimizer/outcomes.ts';
import { StepRegistry } from './optimizer/registry.ts';
import { Discovery } from './optimizer/discovery.ts';
import { AnswerCache } from './cache/answer-cache.ts';
import { SemanticCache } from './cache/semantic-cache.ts';
import { createEmbedder, type Embedder } from './cache/semantic/index.ts';
import { Accounts } from './tenancy/accounts.ts';
import { lockDataDir } from './db/data-dir-lock.ts';
import { ownerOnlyTree, ownerOnlyUmask } from './db/data-dir-mode.ts';
import { AdminAuth } from './tenancy/admin-auth.ts';
import { KeyCache } from './tenancy/key-cache.ts';
import { Sessions } from './tenancy/sessions.ts';
import { ProviderKeys } from './tenancy/provider-keys.ts';
import { WorkflowLife } from './workflows/life.ts';
import { TopicSettings } from './settings/topic-settings.ts';
import { alertSettings, guardSettings, rateLimitSettings, type AlertSettings, type GuardSettings, type RateLimitSettings } from '@optimizer/schema';
import { RateLimits } from './limits/rate-limits.ts';
import { Alerts } from './alerts/alerts.ts';
import { Outbox } from './alerts/outbox.ts';
import { Deliverer } from './alerts/deliver.ts';
import { WebhookEndpoints } from './alerts/webhook-endpoints.ts';
import { LatencyBoard } from './optimizer/latency.ts';
import { Recordings } from './capture/recordings.ts';
import { Budget } from './billing/budget.ts';
import { BillingView } from './billing/view.ts';
import { Payments } from './billing/payments.ts';
import { AutoTopups } from './billing/auto-topup.ts';
import { Statements } from './billing/statements.ts';
import { Subscriptions } from './billing/subscriptions.ts';
import { FeeInvoices } from './billing/fee-invoices.ts';
import type Stripe from 'stripe';
import { SignupSettings } from './tenancy/signup-settings.ts';
import { SignupAllowance } from './billing/signup-allowance.ts';
import { DoorThrottle, doorLimits } from './limits/door-throttle.ts';
import { LearningQueue } from './pipeline/learning-queue.ts';
import type { PipelineDeps } from './pipeline/deps.ts';

/** The gateway's services, built once: what the pipeline uses (PipelineDeps) and the rest the doors and jobs use. */
export interface Services extends PipelineDeps {
  db: Database;
  hot: HotStore;
  metrics: Metrics;
  keys: KeyCache;
  sessions: Sessions;
  accounts: Accounts;
  adminAuth: AdminAuth;
  /** The one client for tenant-directed calls to alert webhooks (WEBHOOK_ADDRESS_POLICY). */
  webhookOutbound: TenantOutbound;
  connections: Connections;
  managedAgents: ManagedAgents;
  callViews: CallViews;
  customProviders: CustomProviders;
  alertSettings: TopicSettings<AlertSettings>;
  webhookEndpoints: WebhookEndpoints;
  alerts: Alerts;
  /** The monthly partitions of calls and activity: made ahead, dropped past the retention. */
  partitions: Partitions;
  limitSettings: TopicSettings<RateLimitSettings>;
  billing: BillingView;
  payments: Payments;
  autoTopups: AutoTopups;
  statements: Statements;
  subscriptions: Subscriptions;
  /** Each ended period's fee invoiced on the payment processor and paid, once across replicas. */
  feeInvoices: FeeInvoices;
  /** What a new account is promised (the admin's signup setting) and its email confirmation. */
  signup: SignupAllowance;
  /** Abuse limits per client address on the doors without a key. */
  doors: DoorThrottle;
  close(): Promise<void>;
}

export interface ServiceHooks {
  announceAdminKey?: (key: string) => void;
  /** Makes the semantic cache's embedder (default: MiniLM from EMBEDDING_MODEL_DIR, else the packaged model, else lexical). */
  createEmbedder?: () => Promise<Embedder>;
  /** Resolves vendor host names (default: the system's resolver). */
  resolve?: Resolver;
}

export async function createServices(config: Config, logger: Logger, hooks: ServiceHooks = {}): Promise<Services> {
  const dataDir = resolve(config.DATA_DIR);
  ownerOnlyUmask();
  ownerOnlyTree(dataDir);
  const unlock = lockDataDir(dataDir);
  const master = loadMasterKey({
    fromEnv: config.OPTIMIZER_MASTER_KEY,
    dataDir,
    onGenerated: (path) => logger.warn({ path }, 'generated a master key for secrets at rest; back it up, or set OPTIMIZER_MASTER_KEY'),
  });
  const hasher = new KeyHasher(master);
  const envelope = new Envelope([{ id: 'k1', key: master }]);
  const db = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir, logger });
  ownerOnlyTree(dataDir); // and what the embedded database set up on its own
  const partitions = new Partitions({ db, logger, retentionDays: config.CALL_RETENTION_DAYS });
  await partitions.start(); // this month's partition before the meter replays into it
  const hot: HotStore = config.REDIS_URL
    ? await RedisHotStore.connect(config.REDIS_URL, config.REDIS_KEY_PREFIX, (err) => logger.warn({ err: err.message }, 'redis connection error or a notice handler failed'))
    : new MemoryHotStore(
        (err) => logger.warn({ err: err.message }, 'a notice handler failed'),
        // answered Idempotency-Keys outlive a restart, beside the meter's write-ahead file
        new IdempotencyJournal(join(dataDir, 'idempotency', 'answers.jsonl'), (err) => logger.warn({ err: err.message }, 'idempotency journal sync failed')),
      );
  const learning = new LearningQueue({ concurrency: config.LEARNING_CONCURRENCY, capacity: config.LEARNING_QUEUE_MAX, timeoutMs: config.LEARNING_TIMEOUT_MS, logger });
  const metrics: Metrics = new Metrics({ meterPending: () => meter.pending, learning: () => learning.stats });
  const otel = otelOptions(config);
  // the SDK is loaded only when tracing is on: a gateway without it holds no tracer provider at all
  const tracing: Tracing | null = otel === null ? null : (await import('./telemetry/otel.ts')).createOtelTracing(otel);
  const meter: Meter = new Meter({ db, walDir: join(dataDir, 'wal'), logger, flushMs: config.METER_FLUSH_MS, observe: (batch) => metrics.observe(batch), quarantined: (rows) => metrics.meterQuarantined(rows) });
  await meter.start();
  const keys = new KeyCache(db, hot, hasher);
  await keys.start();
  const providerKeys = new ProviderKeys(db, hot, envelope);
  await providerKeys.start();
  const adminAuth = new AdminAuth(hasher);
  await adminAuth.start({
    fromEnv: config.ADMIN_KEY,
    db,
    announce:
      hooks.announceAdminKey ??
      ((key) => process.stdout.write(`\nAdmin key (shown once, stored hashed; keep it safe):\n  ${key}\n\n`)),
  });
  const accounts = new Accounts(db, hasher, keys);
  const catalog = new Catalog(db, hot, parseUnknownModelPrice(config.UNKNOWN_MODEL_PRICE));
  const providers = new ProviderRegistry(config);
  const customProviders = new CustomProviders(db, hot, envelope, providers, config.CUSTOM_PROVIDER_ADDRESS_POLICY);
  await customProviders.start();
  const optimizer = new Optimizer(db, meter, { seed: config.ROUTING_SEED });
  await optimizer.start();
  const steps = new StepRegistry({ db, optimizer, logger, semantic: (accountId, fingerprint) => {
      // a step's verified record shows only once its tenant has set an error bound and it has been asked
      const verification = semanticCache.verification.stats(accountId, fingerprint);
      return { ...semanticCache.stepCheck(accountId, fingerprint), ...(verification ? { verification } : {}) };
    },
  });
  steps.start();
  const routingSettings = new RoutingSettings(db, hot);
  const answerCache = new AnswerCache(hot);
  const semanticCache = new SemanticCache({
    db,
    hot,
    logger,
    embedTimeoutMs: config.SEMANTIC_EMBED_TIMEOUT_MS,
    createEmbedder:
      hooks.createEmbedder ??
      (() => createEmbedder({ modelDir: config.EMBEDDING_MODEL_DIR, onFallback: (why, next) => logger.warn({ why, next }, `semantic cache: embedding model did not load; trying the ${next}`) })),
  });
  await semanticCache.start();
  await routingSettings.start();
  const allow = new AllowList(config.OUTBOUND_ALLOW_LIST);
  const outbound = new Outbound({
    connectMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    firstByteMs: config.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
    idleMs: config.UPSTREAM_IDLE_TIMEOUT_MS,
    maxResponseBytes: config.UPSTREAM_MAX_RESPONSE_BYTES,
    allow,
    ...(hooks.resolve ? { resolve: hooks.resolve } : {}),
  });
  // tenant-directed calls: one client, two policies (webhooks as the operator set them; connections public-only)
  const tenantClient = (policy: 'any' | 'public-only') => new TenantOutbound({ outbound, policy, resolve: hooks.resolve ?? systemResolver, allow });
  const webhookOutbound = tenantClient(config.WEBHOOK_ADDRESS_POLICY);
  const connections = new Connections({ db, envelope, client: tenantClient('public-only'), timeoutMs: config.CONNECTION_TIMEOUT_MS });
  await catalog.start();
  const discovery = new Discovery({ db, meter, steps, catalog, providers, providerKeys, logger });
  await discovery.start();
  // the payment processor's client, known once payments is made (below); subscriptions use it per request
  const processor: { get: () => Stripe | null } = { get: () => null };
  const subscriptions = new Subscriptions({
    db,
    accounts,
    logger,
    sweepMs: config.BILLING_SWEEP_MS,
    stripe: () => processor.get(),
    plan: { priceMicros: Math.round(config.MANAGED_PLAN_PRICE_USD * 1e6), runCap: config.MANAGED_PLAN_RUN_CAP },
    baseRunCap: config.MANAGED_RUN_CAP,
    graceS: config.BILLING_GRACE_S,
  });
  const workflowLife = new WorkflowLife({ db, hot, accounts, steps, routing: routingSettings, subscribed: subscriptions.isActive });
  await workflowLife.start();
  subscriptions.attach(workflowLife);
  const guard = new TopicSettings<GuardSettings>({ db, hot }, 'guard', guardSettings.parse({}));
  await guard.start();
  const alertTopic = new TopicSettings<AlertSettings>({ db, hot }, 'alerts', alertSettings.parse({}));
  await alertTopic.start();
  const limitSettings = new TopicSettings<RateLimitSettings>({ db, hot }, 'limits', rateLimitSettings.parse({}));
  await limitSettings.start();
  const rateLimits = new RateLimits(limitSettings, { rpm: config.RATE_LIMIT_CEILING_RPM, tpm: config.RATE_LIMIT_CEILING_TPM });
  const budget = new Budget({ db, hot, alerts: alertTopic, logger, devAllowanceMicros: Math.round(config.BILLING_DEV_ALLOWANCE_USD * 1e6), limits: rateLimits });
  subscriptions.attachBudget(budget);
  const billing = new BillingView({ db, meter, budget, config });
  const webhookEndpoints = new WebhookEndpoints(db, envelope);
  const outbox = new Outbox(db);
  const signupSettings = new SignupSettings({ db, hot, defaultAllowanceUsd: config.BILLING_DEV_ALLOWANCE_USD });
  await signupSettings.start();
  const signupAllowance = new SignupAllowance({ db, hasher, settings: signupSettings, budget, outbox, publicUrl: config.PUBLIC_URL });
  accounts.attachAllowance(signupAllowance);
  const deliverer = new Deliverer({
    outbox,
    endpoints: webhookEndpoints,
    client: webhookOutbound,
    logger,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    smtpUrl: config.SMTP_URL,
    emailFrom: config.ALERT_EMAIL_FROM,
  });
  const alerts = new Alerts({ db, settings: alertTopic, outbox, endpoints: webhookEndpoints, deliverer, logger });
  alerts.start(config.ALERT_POLL_MS, config.ALERT_SPEND_CHECK_MS);
  const payments = new Payments({ config, db, budget, logger });
  processor.get = () => payments.processor;
  const feeInvoices = new FeeInvoices({ db, stripe: () => payments.processor, budget, logger, feeRate: config.BILLING_FEE_RATE });
  payments.listenBilling((event) => feeInvoices.applyEvent(event));
  payments.listenBilling((event) => subscriptions.applyEvent(event));
  if (payments.processor) feeInvoices.start(config.BILLING_SWEEP_MS);
  const autoTopups = new AutoTopups({ db, payments, alerts, alertSettings: alertTopic, logger });
  payments.listen({
    autoTopup: (o) => (o.ok ? autoTopups.succeeded(o.attemptId, o.paymentIntentId, o.accountId) : autoTopups.failed(o.attemptId, o.reason)),
    credited: (accountId) => autoTopups.nudge(accountId),
  });
  meter.onWalletDebited((accounts) => {
    for (const a of accounts) autoTopups.nudge(a);
  });
  autoTopups.start(config.BILLING_SWEEP_MS);
  const recordings = new Recordings({ db, hot, meter, accounts, logger, sweepMs: config.RECORDING_SWEEP_MS });
  await recordings.start();
  const managedAgents = new ManagedAgents({ store: new RunStore(db, config.MANAGED_RUN_LEASE_SECONDS), connections, logger, runCap: subscriptions.runCap });

  const services: Services = {
    config,
    logger,
    db,
    hot,
    metrics,
    tracing,
    meter,
    keys,
    sessions: new Sessions({ db, hot, keys, ttlMs: config.SESSION_TTL_MS }),
    accounts,
    providerKeys,
    adminAuth,
    catalog,
    providers,
    outbound,
    webhookOutbound,
    connections,
    managedAgents,
    idempotency: new Idempotency(hot),
    callViews: new CallViews(db, meter),
    customProviders,
    optimizer,
    routingSettings,
    outcomes: new Outcomes(db, meter, optimizer, answerCache, config.DATABASE_URL ? config.METER_FLUSH_MS : 0),
    steps,
    discovery,
    answerCache,
    semanticCache,
    workflowLife,
    guardSettings: guard,
    rateLimits,
    limitSettings,
    alertSettings: alertTopic,
    webhookEndpoints,
    alerts,
    latency: new LatencyBoard(),
    recordings,
    partitions,
    budget,
    learning,
    billing,
    signup: signupAllowance,
    doors: new DoorThrottle(hot, doorLimits(config)),
    payments,
    autoTopups,
    statements: new Statements({ db, meter, feeRate: config.BILLING_FEE_RATE, feeInvoices }),
    subscriptions,
    feeInvoices,
    breaker: new CircuitBreaker({ threshold: config.CIRCUIT_FAILURES, cooldownMs: config.CIRCUIT_COOLDOWN_MS }),
    async close() {
      await managedAgents.schedules.close(); // no tick fires after this
      await managedAgents.runner.close(); // the step in flight finishes and is metered; the run is left for the next runner
      await services.learning.close(config.LEARNING_DRAIN_MS); // before the meter closes: what learning spent is metered
      subscriptions.close();
      feeInvoices.stop();
      autoTopups.stop();
      await autoTopups.settle();
      alerts.stop();
      await alerts.settle();
      optimizer.stop();
      recordings.stop();
      partitions.stop();
      await discovery.close();
      await steps.close();
      await semanticCache.close();
      await outbound.close();
      await meter.close();
      await tracing?.shutdown().catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'tracing: the last spans were not exported')); // the spans still queued go out
      await hot.close();
      await db.close();
      unlock();
    },
  };
  return services;
}
