// The composition root: every long-lived service, built once from the config and
// closed in reverse order.
import { join, resolve } from 'node:path';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import type { HotStore } from './hot/store.ts';
import { MemoryHotStore } from './hot/memory.ts';
import { RedisHotStore } from './hot/redis.ts';
import type { Logger } from './logger.ts';
import { Metrics } from './http/metrics.ts';
import { Meter } from './meter/meter.ts';
import { Envelope } from './security/envelope.ts';
import { loadMasterKey } from './security/master-key.ts';
import { KeyHasher } from './security/secrets.ts';
import { Catalog } from './catalog/catalog.ts';
import { Idempotency } from './pipeline/idempotency.ts';
import { CallViews } from './reporting/calls.ts';
import { Outbound, type Resolver } from './providers/outbound.ts';
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

export interface Services {
  config: Config;
  logger: Logger;
  db: Database;
  hot: HotStore;
  metrics: Metrics;
  meter: Meter;
  keys: KeyCache;
  sessions: Sessions;
  accounts: Accounts;
  providerKeys: ProviderKeys;
  adminAuth: AdminAuth;
  catalog: Catalog;
  providers: ProviderRegistry;
  outbound: Outbound;
  idempotency: Idempotency;
  callViews: CallViews;
  breaker: CircuitBreaker;
  customProviders: CustomProviders;
  optimizer: Optimizer;
  routingSettings: RoutingSettings;
  outcomes: Outcomes;
  steps: StepRegistry;
  discovery: Discovery;
  answerCache: AnswerCache;
  semanticCache: SemanticCache;
  workflowLife: WorkflowLife;
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
  const hot: HotStore = config.REDIS_URL
    ? await RedisHotStore.connect(config.REDIS_URL, (err) => logger.warn({ err: err.message }, 'redis connection error or a notice handler failed'))
    : new MemoryHotStore((err) => logger.warn({ err: err.message }, 'a notice handler failed'));
  const metrics = new Metrics();
  const meter = new Meter({ db, walDir: join(dataDir, 'wal'), logger, flushMs: config.METER_FLUSH_MS });
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
  const catalog = new Catalog(db, hot);
  const providers = new ProviderRegistry(config);
  const customProviders = new CustomProviders(db, hot, envelope, providers, config.CUSTOM_PROVIDER_ADDRESS_POLICY);
  await customProviders.start();
  const optimizer = new Optimizer(db, meter);
  await optimizer.start();
  const steps = new StepRegistry({ db, optimizer, logger, semantic: (accountId, fingerprint) => semanticCache.stepCheck(accountId, fingerprint) });
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
  const outbound = new Outbound({
    connectMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    firstByteMs: config.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
    idleMs: config.UPSTREAM_IDLE_TIMEOUT_MS,
    maxResponseBytes: config.UPSTREAM_MAX_RESPONSE_BYTES,
    ...(hooks.resolve ? { resolve: hooks.resolve } : {}),
  });
  await catalog.start();
  const discovery = new Discovery({ db, meter, steps, catalog, providers, providerKeys, logger });
  await discovery.start();
  const workflowLife = new WorkflowLife({ db, hot, accounts, steps, routing: routingSettings });
  await workflowLife.start();

  return {
    config,
    logger,
    db,
    hot,
    metrics,
    meter,
    keys,
    sessions: new Sessions({ db, hot, keys, ttlMs: config.SESSION_TTL_MS }),
    accounts,
    providerKeys,
    adminAuth,
    catalog,
    providers,
    outbound,
    idempotency: new Idempotency(hot),
    callViews: new CallViews(db, meter),
    customProviders,
    optimizer,
    routingSettings,
    outcomes: new Outcomes(db, meter, optimizer, answerCache),
    steps,
    discovery,
    answerCache,
    semanticCache,
    workflowLife,
    breaker: new CircuitBreaker({ threshold: config.CIRCUIT_FAILURES, cooldownMs: config.CIRCUIT_COOLDOWN_MS }),
    async close() {
      optimizer.stop();
      await discovery.close();
      await steps.close();
      await semanticCache.close();
      await outbound.close();
      await meter.close();
      await hot.close();
      await db.close();
      unlock();
    },
  };
}
