// The semantic cache as a service: the in-memory index (semantic/), the answers it
// serves, their durable copy in the database and the notices that keep replicas in
// step. Nothing here waits on PostgreSQL on the request path: a tenant's entries are
// loaded in the background on its first semantic call (it misses until they are in),
// and new entries reach the database through a batched queue.
//
// The embedder is created on the first call of a tenant that turned semantic caching
// on, never before; embedding runs in its worker thread, and a lookup that cannot
// get its vector within `embedTimeoutMs` is a miss, never an error.
//
// Its parts, in semantic-cache/: the entries in memory (entries.ts), the writes and reads
// of the database (writer.ts), the shapes it is asked and answers (types.ts).
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';
import type { HotStore } from '../hot/store.ts';
import type { Logger } from '../logger.ts';
import type { CachedAnswer } from './answer-cache.ts';
import { newId } from '../security/secrets.ts';
import { defaultThresholdFor, type Embedder } from './semantic/index.ts';
import { describeEmbedder, type EmbedderStatus } from './semantic-metrics.ts';
import { SemanticEntries } from './semantic-cache/entries.ts';
import { fromBase64, indexKey, stepKey, toBase64, within } from './semantic-cache/keys.ts';
import type { EntryNotice, Lookup, SemanticQuery, StepCheck } from './semantic-cache/types.ts';
import { SemanticWriter } from './semantic-cache/writer.ts';
import { SemanticVerification } from './semantic-cache/verification.ts';

export type { Lookup, SemanticHit, SemanticQuery, StepCheck } from './semantic-cache/types.ts';

const ENTRY_CHANNEL = 'semantic-cache:entry';
const STEP_CHANNEL = 'semantic-cache:step';
/**
 * Entries a tenant keeps in memory over all its steps and scopes (each is a vector, its
 * question and its answer: a few KB); the oldest goes beyond it. Also how many are read back
 * when its index is rebuilt.
 */
export const MAX_PER_TENANT = 50_000;
/** Entries kept waiting for the database while it is down (the newest); older ones are dropped. */
const MAX_PENDING = 20_000;
/** How often expired entries leave memory and the database. */
const SWEEP_MS = 10 * 60_000;
/** Judge checks a step passes before it stops being checked (unless the optimizer still explores it). */
export const SETTLE_CHECKS = 20;
/** A step loses semantic caching once more than this share of its checked hits failed. */
export const MAX_FAILED_SHARE = 0.1;

interface Tenant {
  state: 'loading' | 'ready';
  /** Notices that arrived while the tenant was loading, applied once it is in. */
  early: EntryNotice[];
}

export interface SemanticCacheOptions {
  db: Database;
  hot: HotStore;
  logger: Logger;
  /** Makes the embedder: called once, on the first call of a tenant with semantic caching on. */
  createEmbedder: () => Promise<Embedder>;
  /** How long a lookup waits for its question's vector before it counts as a miss. */
  embedTimeoutMs: number;
  /** How often queued rows are written (default 200 ms). */
  flushMs?: number;
  /** Entries a tenant keeps in memory (default MAX_PER_TENANT). */
  maxPerTenant?: number;
  /** Entries kept waiting while the database is down (default MAX_PENDING). */
  maxPending?: number;
}

/** How long a store waits for its question's vector before it gives up. */
const STORE_WAIT_MS = 30_000;
/** How long closing waits for stores and rebuilds still running. */
const CLOSE_WAIT_MS = 2_000;

export class SemanticCache {
  readonly #hot: HotStore;
  readonly #logger: Logger;
  readonly #create: () => Promise<Embedder>;
  readonly #embedTimeoutMs: number;
  readonly #origin = randomUUID();
  #embedder: Promise<Embedder> | null = null;
  #ready: Embedder | null = null;
  #embedderFailed = false;
  readonly #entries: SemanticEntries;
  readonly #writer: SemanticWriter;
  readonly #maxPerTenant: number;
  readonly #tenants = new Map<string, Tenant>();
  readonly #steps = new Map<string, StepCheck>();
  #sweeper: NodeJS.Timeout | null = null;
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;
  /** Steps' verified records, for tenants with an error bound (`cache.semantic_error_bound`). */
  readonly verification = new SemanticVerification();

  constructor(opts: SemanticCacheOptions) {
    this.#hot = opts.hot;
    this.#logger = opts.logger;
    this.#create = opts.createEmbedder;
    this.#embedTimeoutMs = opts.embedTimeoutMs;
    this.#maxPerTenant = opts.maxPerTenant ?? MAX_PER_TENANT;
    this.#entries = new SemanticEntries(this.#maxPerTenant);
    this.#writer = new SemanticWriter({ db: opts.db, logger: opts.logger, flushMs: opts.flushMs ?? 200, maxPending: opts.maxPending ?? MAX_PENDING });
  }

  /** Entries stored but not yet written to the database. */
  get pendingWrites(): number {
    return this.#writer.pendingEntries;
  }

  /** How many entries a tenant holds in memory. */
  entryCount(accountId: string): number {
    return this.#entries.count(accountId);
  }

  /** Listens for other replicas' entries and step verdicts. Creates no embedder. */
  async start(): Promise<void> {
    await this.#hot.subscribe(ENTRY_CHANNEL, (m) => this.#onEntry(m));
    await this.#hot.subscribe(STEP_CHANNEL, (m) => this.#onStep(m));
    this.#writer.start();
    this.#sweeper = setInterval(() => void this.sweep().catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'semantic cache: sweep failed')), SWEEP_MS);
    this.#sweeper.unref();
  }

  /** Drops expired entries from memory and from the database. */
  async sweep(now = Date.now()): Promise<void> {
    this.#entries.dropExpired(now);
    await this.#writer.deleteExpired(now);
  }

  /** Whether an embedder exists (it is made on the first semantic call, never before). */
  get embedderStarted(): boolean {
    return this.#embedder !== null;
  }

  /** The embedder's name once loaded ("onnx-minilm", "lexical"), else null. */
  get embedderName(): string | null {
    return this.#ready?.name ?? null;
  }

  /** Which embedder the cache uses, for /metrics: not made yet, loading, ready (with its model) or failed. */
  get embedderStatus(): EmbedderStatus {
    if (this.#ready) return { state: 'ready', embedder: this.#ready };
    if (this.#embedderFailed) return { state: 'failed' };
    return { state: this.#embedder ? 'loading' : 'idle' };
  }

  /** The default threshold in force (the loaded embedder's; MiniLM's before it loads). */
  get defaultThreshold(): number {
    return defaultThresholdFor(this.#ready?.name ?? 'onnx-minilm');
  }

  #startEmbedder(): Promise<Embedder> {
    if (!this.#embedder) {
      const t0 = performance.now();
      this.#embedder = this.#create().then((e) => {
        this.#ready = e;
        this.#entries.open(e.name);
        const ms = Math.round(performance.now() - t0);
        this.#logger.info({ embedder: e.name, source: e.source, model: e.model, dims: e.dims, ms }, `semantic cache: embedder ${describeEmbedder(e)} ready`);
        return e;
      });
      this.#embedder.catch((err: unknown) => {
        this.#embedderFailed = true;
        this.#logger.warn({ err: String(err) }, 'semantic cache: no embedder');
      });
    }
    return this.#embedder;
  }

  #embed(question: string): Promise<Float32Array | null> {
    const p = this.#startEmbedder()
      .then((e) => e.embed([question]))
      .then((v) => v[0] ?? null)
      .catch(() => null);
    return p;
  }

  /** The step's record of judge checks (zeros when never checked). */
  stepCheck(accountId: string, step: string): StepCheck {
    return this.#steps.get(stepKey(accountId, step)) ?? { checked: 0, failed: 0, disabled: false, reason: null };
  }

  /**
   * Finds a cached answer to a question like this one under the same tenant, step and
   * scope. Never throws and never waits on the database; a slow embedder is a miss.
   */
  async lookup(q: SemanticQuery): Promise<Lookup> {
    const vector = this.#embed(q.question);
    this.#ensureTenant(q.accountId);
    if (!this.#ready || !this.#entries.isOpen) return { hit: null, why: 'embedder loading', vector };
    if (this.#tenants.get(q.accountId)?.state !== 'ready') return { hit: null, why: 'entries loading', vector };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), this.#embedTimeoutMs)));
    const v = await Promise.race([vector, timeout]);
    clearTimeout(timer);
    if (v === 'timeout') return { hit: null, why: `embedding took over ${this.#embedTimeoutMs} ms`, vector };
    if (!v) return { hit: null, why: 'embedding failed', vector };
    const hit = this.#entries.find(indexKey(q.accountId, q.step, q.scope), v, q.question, q.threshold);
    return { hit, why: null, vector };
  }

  /** Stores an answer under its question (in memory now, in the database soon, on every replica by a notice). */
  store(q: SemanticQuery, vector: Promise<Float32Array | null>, answer: CachedAnswer, ttlMs: number): void {
    const p = this.#store(q, vector, answer, ttlMs).catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'semantic cache: store failed'));
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
  }

  async #store(q: SemanticQuery, vector: Promise<Float32Array | null>, answer: CachedAnswer, ttlMs: number): Promise<void> {
    const v = await within(vector, STORE_WAIT_MS); // a hung embedder must not pile up pending stores
    const e = this.#ready;
    if (!v || !e || this.#closed) return;
    const id = newId('sem');
    const expiresAt = Date.now() + ttlMs;
    this.#entries.add(q.accountId, indexKey(q.accountId, q.step, q.scope), id, v, q.question, answer, expiresAt);
    const now = new Date().toISOString();
    const vec = toBase64(v);
    this.#writer.queueEntry({ id, account_id: q.accountId, step: q.step, scope: q.scope, question: q.question, embedder: e.name, vector: vec, answer, created_at: now, expires_at: new Date(expiresAt).toISOString() });
    const notice: EntryNotice = { origin: this.#origin, accountId: q.accountId, step: q.step, scope: q.scope, id, question: q.question, embedder: e.name, vector: vec, answer, expiresAt };
    await this.#hot.publish(ENTRY_CHANNEL, JSON.stringify(notice));
  }

  /**
   * Records the judge's verdict on a semantic hit of a step. A step whose failed share
   * passes MAX_FAILED_SHARE loses semantic caching, durably and on every replica.
   */
  recordCheck(accountId: string, step: string, passed: boolean, detail: string): StepCheck {
    const prev = this.stepCheck(accountId, step);
    const checked = prev.checked + 1;
    const failed = prev.failed + (passed ? 0 : 1);
    const losing = !prev.disabled && failed > 0 && failed / checked > MAX_FAILED_SHARE;
    const next: StepCheck = {
      checked,
      failed,
      disabled: prev.disabled || losing,
      reason: losing ? `the judge failed ${failed} of ${checked} checked semantic hits (${detail})` : prev.reason,
    };
    this.#steps.set(stepKey(accountId, step), next);
    this.#writer.queueStep({ accountId, step, ...next });
    if (losing) this.#logger.info({ accountId, step, checked, failed }, 'semantic cache: step loses semantic caching');
    void this.#hot
      .publish(STEP_CHANNEL, JSON.stringify({ origin: this.#origin, accountId, step, ...next }))
      .catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'semantic cache: step notice failed'));
    return next;
  }

  #ensureTenant(accountId: string): void {
    if (this.#tenants.has(accountId)) return;
    const t: Tenant = { state: 'loading', early: [] };
    this.#tenants.set(accountId, t);
    const p = this.#load(accountId, t).catch((err: unknown) => {
      this.#logger.warn({ err: String(err), accountId }, 'semantic cache: rebuild failed; will retry on the next call');
      this.#tenants.delete(accountId);
    });
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
  }

  /** Rebuilds one tenant's index and step verdicts from the database. */
  async #load(accountId: string, t: Tenant): Promise<void> {
    const e = await this.#startEmbedder();
    for (const s of await this.#writer.readSteps(accountId)) {
      const k = stepKey(accountId, s.step);
      if (!this.#writer.hasPendingStep(k)) this.#steps.set(k, { checked: Number(s.checked), failed: Number(s.failed), disabled: s.disabled, reason: s.reason });
    }
    const rows = await this.#writer.readEntries(accountId, e.name, this.#maxPerTenant);
    for (const r of rows.reverse()) {
      // oldest first, so the newest entries are the most recently used
      const answer = typeof r.answer === 'string' ? (JSON.parse(r.answer) as CachedAnswer) : r.answer;
      this.#entries.add(accountId, indexKey(accountId, r.step, r.scope), r.id, fromBase64(r.vector.replace(/\s+/g, '')), r.question, answer, new Date(r.expires_at).getTime());
    }
    t.state = 'ready';
    for (const n of t.early.splice(0)) this.#applyEntry(n);
    this.#logger.info({ accountId, entries: rows.length }, 'semantic cache: tenant index rebuilt');
  }

  #onEntry(message: string): void {
    let n: EntryNotice;
    try {
      n = JSON.parse(message) as EntryNotice;
    } catch {
      return;
    }
    if (n.origin === this.#origin) return;
    const t = this.#tenants.get(n.accountId);
    if (!t) return; // not in use here: the database has it when it is
    if (t.state === 'loading') t.early.push(n);
    else this.#applyEntry(n);
  }

  /**
   * The tenant's say on a step's semantic caching: `true` gives it back with its checks
   * counted from zero, `false` takes it away. Written at once (an admin action, not the
   * hot path) and sent to every replica.
   */
  async setStep(accountId: string, step: string, on: boolean): Promise<StepCheck> {
    const next: StepCheck = on ? { checked: 0, failed: 0, disabled: false, reason: null } : { ...this.stepCheck(accountId, step), disabled: true, reason: 'turned off by the tenant' };
    await this.#writer.setStep(accountId, step, next);
    this.#steps.set(stepKey(accountId, step), next);
    await this.#hot.publish(STEP_CHANNEL, JSON.stringify({ origin: this.#origin, accountId, step, ...next }));
    return next;
  }

  #applyEntry(n: EntryNotice): void {
    if (!this.#ready || n.embedder !== this.#ready.name) return;
    this.#entries.add(n.accountId, indexKey(n.accountId, n.step, n.scope), n.id, fromBase64(n.vector), n.question, n.answer, n.expiresAt);
  }

  #onStep(message: string): void {
    try {
      const n = JSON.parse(message) as { origin: string; accountId: string; step: string } & StepCheck;
      if (n.origin === this.#origin) return;
      this.#steps.set(stepKey(n.accountId, n.step), { checked: n.checked, failed: n.failed, disabled: n.disabled, reason: n.reason });
    } catch {
      // a malformed notice is ignored
    }
  }

  /** Writes queued entries (in batches) and step verdicts; a failed write keeps them queued. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /** Resolves once every store and rebuild begun so far has finished and been written. */
  async settle(): Promise<void> {
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
    await this.flush();
  }

  async close(): Promise<void> {
    this.#writer.stopTimer();
    if (this.#sweeper) clearInterval(this.#sweeper);
    await within(Promise.allSettled([...this.#inFlight]).then(() => null), CLOSE_WAIT_MS);
    this.#closed = true;
    this.#writer.close();
    await this.flush().catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'semantic cache: final write failed'));
    if (this.#embedder) await (await this.#embedder.catch(() => null))?.close();
  }
}
