// The semantic cache as a service: the in-memory index (semantic/), the answers it
// serves, their durable copy in the database and the notices that keep replicas in
// step. Nothing here waits on PostgreSQL on the request path: a tenant's entries are
// loaded in the background on its first semantic call (it misses until they are in),
// and new entries reach the database through a batched queue.
//
// The embedder is created on the first call of a tenant that turned semantic caching
// on, never before; embedding runs in its worker thread, and a lookup that cannot
// get its vector within `embedTimeoutMs` is a miss, never an error.
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';
import type { HotStore } from '../hot/store.ts';
import type { Logger } from '../logger.ts';
import type { CachedAnswer } from './answer-cache.ts';
import { newId } from '../security/secrets.ts';
import { storableJson } from '../meter/storable.ts';
import { defaultThresholdFor, effectiveThreshold, SemanticIndex, type Embedder } from './semantic/index.ts';
import { describeEmbedder, type EmbedderStatus } from './semantic-metrics.ts';

const ENTRY_CHANNEL = 'semantic-cache:entry';
const STEP_CHANNEL = 'semantic-cache:step';
/** Entries a tenant keeps per scope; the least recently added is dropped beyond it. */
const MAX_PER_SCOPE = 20_000;
/**
 * Entries a tenant keeps in memory over all its steps and scopes (each is a vector, its
 * question and its answer: a few KB); the oldest goes beyond it. Also how many are read back
 * when its index is rebuilt.
 */
export const MAX_PER_TENANT = 50_000;
/** Entries written per statement. */
const WRITE_BATCH = 2_000;
/** Entries kept waiting for the database while it is down (the newest); older ones are dropped. */
const MAX_PENDING = 20_000;
/** How often expired entries leave memory and the database. */
const SWEEP_MS = 10 * 60_000;
/** Judge checks a step passes before it stops being checked (unless the optimizer still explores it). */
export const SETTLE_CHECKS = 20;
/** A step loses semantic caching once more than this share of its checked hits failed. */
export const MAX_FAILED_SHARE = 0.1;

/** What one semantic lookup is about: the question, and everything it must share with a cached one. */
export interface SemanticQuery {
  accountId: string;
  /** The step's fingerprint. */
  step: string;
  /** Hash of everything but the question that shapes the answer (earlier messages, tools, params, model). */
  scope: string;
  question: string;
  /** A raised bar for this call (request or tenant setting); never below the embedder's default. */
  threshold: number | undefined;
}

export interface SemanticHit {
  id: string;
  similarity: number;
  question: string;
  answer: CachedAnswer;
}

export interface Lookup {
  hit: SemanticHit | null;
  /** Why there was no hit when it was not for want of a similar question ("embedder loading", …). */
  why: string | null;
  /** The question's vector, for storing the answer; null when it could not be had. */
  vector: Promise<Float32Array | null>;
}

export interface StepCheck {
  checked: number;
  failed: number;
  disabled: boolean;
  reason: string | null;
}

interface Stored {
  accountId: string;
  answer: CachedAnswer;
  question: string;
  expiresAt: number;
}

interface EntryNotice {
  origin: string;
  accountId: string;
  step: string;
  scope: string;
  id: string;
  question: string;
  embedder: string;
  vector: string;
  answer: CachedAnswer;
  expiresAt: number;
}

interface Tenant {
  state: 'loading' | 'ready';
  /** Notices that arrived while the tenant was loading, applied once it is in. */
  early: EntryNotice[];
}

interface EntryRow {
  id: string;
  account_id: string;
  step: string;
  scope: string;
  question: string;
  embedder: string;
  vector: string;
  answer: CachedAnswer;
  created_at: string;
  expires_at: string;
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

/** The promise's value, or null when it takes longer than `ms`. */
function within<T>(p: Promise<T | null>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((res) => {
    timer = setTimeout(() => res(null), ms);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const toBase64 = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
function fromBase64(s: string): Float32Array {
  const b = Buffer.from(s, 'base64');
  const out = new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}
const indexKey = (accountId: string, step: string, scope: string) => JSON.stringify([accountId, step, scope]);
const stepKey = (accountId: string, step: string) => `${accountId}\0${step}`;

export class SemanticCache {
  readonly #db: Database;
  readonly #hot: HotStore;
  readonly #logger: Logger;
  readonly #create: () => Promise<Embedder>;
  readonly #embedTimeoutMs: number;
  readonly #flushMs: number;
  readonly #origin = randomUUID();
  #embedder: Promise<Embedder> | null = null;
  #ready: Embedder | null = null;
  #embedderFailed = false;
  #index: SemanticIndex | null = null;
  readonly #answers = new Map<string, Map<string, Stored>>();
  /** Per tenant, its entries' ids (to their index key), oldest first: the tenant's bound is kept on it. */
  readonly #byTenant = new Map<string, Map<string, string>>();
  readonly #maxPerTenant: number;
  readonly #maxPending: number;
  readonly #tenants = new Map<string, Tenant>();
  readonly #steps = new Map<string, StepCheck>();
  #pendingEntries: EntryRow[] = [];
  readonly #pendingSteps = new Map<string, { accountId: string; step: string } & StepCheck>();
  #timer: NodeJS.Timeout | null = null;
  #started = false;
  #sweeper: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;

  constructor(opts: SemanticCacheOptions) {
    this.#db = opts.db;
    this.#hot = opts.hot;
    this.#logger = opts.logger;
    this.#create = opts.createEmbedder;
    this.#embedTimeoutMs = opts.embedTimeoutMs;
    this.#flushMs = opts.flushMs ?? 200;
    this.#maxPerTenant = opts.maxPerTenant ?? MAX_PER_TENANT;
    this.#maxPending = opts.maxPending ?? MAX_PENDING;
  }

  /** Entries stored but not yet written to the database. */
  get pendingWrites(): number {
    return this.#pendingEntries.length;
  }

  /** How many entries a tenant holds in memory. */
  entryCount(accountId: string): number {
    return this.#byTenant.get(accountId)?.size ?? 0;
  }

  /** Listens for other replicas' entries and step verdicts. Creates no embedder. */
  async start(): Promise<void> {
    await this.#hot.subscribe(ENTRY_CHANNEL, (m) => this.#onEntry(m));
    await this.#hot.subscribe(STEP_CHANNEL, (m) => this.#onStep(m));
    this.#started = true;
    this.#armFlush();
    this.#sweeper = setInterval(() => void this.sweep().catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'semantic cache: sweep failed')), SWEEP_MS);
    this.#sweeper.unref();
  }

  /** The write timer runs only while something waits to be written: an idle replica does not wake for it. */
  #armFlush(): void {
    if (this.#timer !== null || !this.#started || this.#closed) return;
    if (this.#pendingEntries.length === 0 && this.#pendingSteps.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush()
        .catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'semantic cache: write failed; will retry'))
        .finally(() => this.#armFlush());
    }, this.#flushMs);
    this.#timer.unref();
  }

  /** Drops expired entries from memory and from the database. */
  async sweep(now = Date.now()): Promise<void> {
    for (const [key, answers] of this.#answers) for (const [id, a] of answers) if (a.expiresAt <= now) this.#forget(key, id);
    await this.#db.em().getConnection().execute('delete from semantic_cache_entries where expires_at <= ?', [new Date(now).toISOString()]);
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
        this.#index = new SemanticIndex({ threshold: defaultThresholdFor(e.name), maxEntriesPerKey: MAX_PER_SCOPE + 1 });
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
    if (!this.#ready || !this.#index) return { hit: null, why: 'embedder loading', vector };
    if (this.#tenants.get(q.accountId)?.state !== 'ready') return { hit: null, why: 'entries loading', vector };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), this.#embedTimeoutMs)));
    const v = await Promise.race([vector, timeout]);
    clearTimeout(timer);
    if (v === 'timeout') return { hit: null, why: `embedding took over ${this.#embedTimeoutMs} ms`, vector };
    if (!v) return { hit: null, why: 'embedding failed', vector };
    const key = indexKey(q.accountId, q.step, q.scope);
    const threshold = effectiveThreshold(this.#index.threshold, q.threshold);
    const found = this.#index.lookup(key, v, q.question, threshold);
    if (!found) return { hit: null, why: null, vector };
    const stored = this.#answers.get(key)?.get(found.id);
    if (!stored || stored.expiresAt <= Date.now()) {
      this.#forget(key, found.id);
      return { hit: null, why: null, vector };
    }
    return { hit: { id: found.id, similarity: found.similarity, question: stored.question, answer: stored.answer }, why: null, vector };
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
    this.#add(q.accountId, q.step, q.scope, id, v, q.question, answer, expiresAt);
    const now = new Date().toISOString();
    const vec = toBase64(v);
    this.#pendingEntries.push({ id, account_id: q.accountId, step: q.step, scope: q.scope, question: q.question, embedder: e.name, vector: vec, answer, created_at: now, expires_at: new Date(expiresAt).toISOString() });
    this.#armFlush();
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
    this.#pendingSteps.set(stepKey(accountId, step), { accountId, step, ...next });
    this.#armFlush();
    if (losing) this.#logger.info({ accountId, step, checked, failed }, 'semantic cache: step loses semantic caching');
    void this.#hot
      .publish(STEP_CHANNEL, JSON.stringify({ origin: this.#origin, accountId, step, ...next }))
      .catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'semantic cache: step notice failed'));
    return next;
  }

  #add(accountId: string, step: string, scope: string, id: string, vector: Float32Array, question: string, answer: CachedAnswer, expiresAt: number): void {
    if (!this.#index || expiresAt <= Date.now()) return;
    const key = indexKey(accountId, step, scope);
    let answers = this.#answers.get(key);
    if (!answers) this.#answers.set(key, (answers = new Map()));
    if (!answers.has(id) && answers.size >= MAX_PER_SCOPE) {
      const oldest = answers.keys().next().value!;
      this.#forget(key, oldest);
    }
    this.#index.add(key, { id, vector, text: question });
    answers.set(id, { accountId, answer, question, expiresAt });
    let mine = this.#byTenant.get(accountId);
    if (!mine) this.#byTenant.set(accountId, (mine = new Map()));
    mine.delete(id);
    mine.set(id, key);
    if (mine.size > this.#maxPerTenant) {
      const [oldest, oldestKey] = mine.entries().next().value!;
      this.#forget(oldestKey, oldest);
    }
  }

  #forget(key: string, id: string): void {
    this.#index?.remove(key, id);
    const answers = this.#answers.get(key);
    const stored = answers?.get(id);
    if (stored) {
      const mine = this.#byTenant.get(stored.accountId);
      mine?.delete(id);
      if (mine?.size === 0) this.#byTenant.delete(stored.accountId);
    }
    answers?.delete(id);
    if (answers?.size === 0) this.#answers.delete(key);
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
    const conn = this.#db.em().getConnection();
    const steps = (await conn.execute('select step, checked, failed, disabled, reason from semantic_cache_steps where account_id = ?', [accountId])) as { step: string; checked: number; failed: number; disabled: boolean; reason: string | null }[];
    for (const s of steps) {
      const k = stepKey(accountId, s.step);
      if (!this.#pendingSteps.has(k)) this.#steps.set(k, { checked: Number(s.checked), failed: Number(s.failed), disabled: s.disabled, reason: s.reason });
    }
    const rows = (await conn.execute(
      `select id, step, scope, question, encode(vector, 'base64') as vector, answer, expires_at from semantic_cache_entries
        where account_id = ? and embedder = ? and expires_at > now() order by created_at desc limit ?`,
      [accountId, e.name, this.#maxPerTenant],
    )) as { id: string; step: string; scope: string; question: string; vector: string; answer: CachedAnswer | string; expires_at: Date | string }[];
    for (const r of rows.reverse()) {
      // oldest first, so the newest entries are the most recently used
      const answer = typeof r.answer === 'string' ? (JSON.parse(r.answer) as CachedAnswer) : r.answer;
      this.#add(accountId, r.step, r.scope, r.id, fromBase64(r.vector.replace(/\s+/g, '')), r.question, answer, new Date(r.expires_at).getTime());
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
    const key = stepKey(accountId, step);
    this.#pendingSteps.delete(key);
    await this.#db
      .em()
      .getConnection()
      .execute(
        `insert into semantic_cache_steps (account_id, step, checked, failed, disabled, reason, updated_at) values (?, ?, ?, ?, ?, ?, now())
         on conflict (account_id, step) do update set checked = excluded.checked, failed = excluded.failed, disabled = excluded.disabled, reason = excluded.reason, updated_at = now()`,
        [accountId, step, next.checked, next.failed, next.disabled, next.reason],
      );
    this.#steps.set(key, next);
    await this.#hot.publish(STEP_CHANNEL, JSON.stringify({ origin: this.#origin, accountId, step, ...next }));
    return next;
  }

  #applyEntry(n: EntryNotice): void {
    if (!this.#ready || n.embedder !== this.#ready.name) return;
    this.#add(n.accountId, n.step, n.scope, n.id, fromBase64(n.vector), n.question, n.answer, n.expiresAt);
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
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    while (this.#pendingEntries.length > 0 || this.#pendingSteps.size > 0) {
      // a batch at a time, so a backlog left by a database outage is not written as one statement
      const entries = this.#pendingEntries.splice(0, WRITE_BATCH);
      const steps = [...this.#pendingSteps.values()];
      this.#pendingSteps.clear();
      this.#flushing = this.#write(entries, steps)
        .catch((err: unknown) => {
          this.#pendingEntries.unshift(...entries);
          // the cache may lose entries (a later miss answers upstream); memory may not grow without bound
          if (this.#pendingEntries.length > this.#maxPending) this.#pendingEntries.splice(0, this.#pendingEntries.length - this.#maxPending);
          for (const s of steps) if (!this.#pendingSteps.has(stepKey(s.accountId, s.step))) this.#pendingSteps.set(stepKey(s.accountId, s.step), s);
          throw err;
        })
        .finally(() => (this.#flushing = null));
      await this.#flushing;
    }
  }

  async #write(entries: EntryRow[], steps: ({ accountId: string; step: string } & StepCheck)[]): Promise<void> {
    const conn = this.#db.em().getConnection();
    if (entries.length) {
      await conn.execute(
        `insert into semantic_cache_entries (id, account_id, step, scope, question, embedder, vector, answer, created_at, expires_at)
         select x.id, x.account_id, x.step, x.scope, x.question, x.embedder, decode(x.vector, 'base64'), x.answer, x.created_at, x.expires_at
           from jsonb_to_recordset(?::jsonb) as x(id text, account_id text, step text, scope text, question text, embedder text,
                vector text, answer jsonb, created_at timestamptz, expires_at timestamptz)
          where exists (select 1 from accounts a where a.id = x.account_id)
         on conflict (id) do nothing`,
        [storableJson(entries)], // NUL or a lone surrogate in a question or an answer would fail every entry of the batch
      );
    }
    if (steps.length) {
      await conn.execute(
        `insert into semantic_cache_steps (account_id, step, checked, failed, disabled, reason, updated_at)
         select x.account_id, x.step, x.checked, x.failed, x.disabled, x.reason, now()
           from jsonb_to_recordset(?::jsonb) as x(account_id text, step text, checked integer, failed integer, disabled boolean, reason text)
          where exists (select 1 from accounts a where a.id = x.account_id)
         on conflict (account_id, step) do update set checked = greatest(semantic_cache_steps.checked, excluded.checked),
           failed = greatest(semantic_cache_steps.failed, excluded.failed), disabled = semantic_cache_steps.disabled or excluded.disabled,
           reason = coalesce(excluded.reason, semantic_cache_steps.reason), updated_at = now()`,
        [JSON.stringify(steps.map((s) => ({ account_id: s.accountId, step: s.step, checked: s.checked, failed: s.failed, disabled: s.disabled, reason: s.reason })))],
      );
    }
  }

  /** Resolves once every store and rebuild begun so far has finished and been written. */
  async settle(): Promise<void> {
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
    await this.flush();
  }

  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#sweeper) clearInterval(this.#sweeper);
    await within(Promise.allSettled([...this.#inFlight]).then(() => null), CLOSE_WAIT_MS);
    this.#closed = true;
    await this.flush().catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'semantic cache: final write failed'));
    if (this.#embedder) await (await this.#embedder.catch(() => null))?.close();
  }
}
