// The semantic cache's durable copy: new entries and step verdicts queue here and are written
// in batches off the request path; a failed write keeps them queued (bounded while the database
// is down). Also the statements that read a tenant back, drop expired entries and set a step now.
import type { Database } from '../../db/database.ts';
import type { Logger } from '../../logger.ts';
import { storableJson } from '../../input/storable.ts';
import type { CachedAnswer } from '../answer-cache.ts';
import { stepKey } from './keys.ts';
import type { EntryRow, StepCheck, StepRecord } from './types.ts';

/** Entries written per statement. */
const WRITE_BATCH = 2_000;

/** A step's verdict as read back. */
export interface StepRow {
  step: string;
  checked: number;
  failed: number;
  disabled: boolean;
  reason: string | null;
}

/** An entry as read back to rebuild a tenant's index (the vector in base64). */
export interface StoredRow {
  id: string;
  step: string;
  scope: string;
  question: string;
  vector: string;
  answer: CachedAnswer | string;
  expires_at: Date | string;
}

export interface WriterOptions {
  db: Database;
  logger: Logger;
  /** How often queued rows are written. */
  flushMs: number;
  /** Entries kept waiting while the database is down (the newest); older ones are dropped. */
  maxPending: number;
}

export class SemanticWriter {
  readonly #db: Database;
  readonly #logger: Logger;
  readonly #flushMs: number;
  readonly #maxPending: number;
  #pendingEntries: EntryRow[] = [];
  readonly #pendingSteps = new Map<string, StepRecord>();
  #timer: NodeJS.Timeout | null = null;
  #started = false;
  #closed = false;
  #flushing: Promise<void> | null = null;

  constructor(o: WriterOptions) {
    this.#db = o.db;
    this.#logger = o.logger;
    this.#flushMs = o.flushMs;
    this.#maxPending = o.maxPending;
  }

  /** Entries queued but not yet written. */
  get pendingEntries(): number {
    return this.#pendingEntries.length;
  }

  /** Writes from now on run on a timer (until then they only queue). */
  start(): void {
    this.#started = true;
    this.#arm();
  }

  /** Stops the timer; queued rows stay for a last flush. */
  stopTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** No timer is armed again. */
  close(): void {
    this.#closed = true;
  }

  queueEntry(row: EntryRow): void {
    this.#pendingEntries.push(row);
    this.#arm();
  }

  queueStep(s: StepRecord): void {
    this.#pendingSteps.set(stepKey(s.accountId, s.step), s);
    this.#arm();
  }

  /** Whether a step's verdict waits to be written (it is newer than the database's). */
  hasPendingStep(key: string): boolean {
    return this.#pendingSteps.has(key);
  }

  /** The write timer runs only while something waits to be written: an idle replica does not wake for it. */
  #arm(): void {
    if (this.#timer !== null || !this.#started || this.#closed) return;
    if (this.#pendingEntries.length === 0 && this.#pendingSteps.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush()
        .catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'semantic cache: write failed; will retry'))
        .finally(() => this.#arm());
    }, this.#flushMs);
    this.#timer.unref();
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

  async #write(entries: EntryRow[], steps: StepRecord[]): Promise<void> {
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

  /**
   * Writes a step's verdict now (an admin action, not the hot path); a queued verdict of the
   * same step is dropped, as this one supersedes it.
   */
  async setStep(accountId: string, step: string, next: StepCheck): Promise<void> {
    this.#pendingSteps.delete(stepKey(accountId, step));
    await this.#db
      .em()
      .getConnection()
      .execute(
        `insert into semantic_cache_steps (account_id, step, checked, failed, disabled, reason, updated_at) values (?, ?, ?, ?, ?, ?, now())
         on conflict (account_id, step) do update set checked = excluded.checked, failed = excluded.failed, disabled = excluded.disabled, reason = excluded.reason, updated_at = now()`,
        [accountId, step, next.checked, next.failed, next.disabled, next.reason],
      );
  }

  /** Deletes the entries expired at `now`. */
  async deleteExpired(now: number): Promise<void> {
    await this.#db.em().getConnection().execute('delete from semantic_cache_entries where expires_at <= ?', [new Date(now).toISOString()]);
  }

  /** A tenant's step verdicts, to rebuild its record of judge checks. */
  async readSteps(accountId: string): Promise<StepRow[]> {
    return (await this.#db.em().getConnection().execute('select step, checked, failed, disabled, reason from semantic_cache_steps where account_id = ?', [accountId])) as StepRow[];
  }

  /** A tenant's newest live entries made by `embedder`, at most `limit`, newest first. */
  async readEntries(accountId: string, embedder: string, limit: number): Promise<StoredRow[]> {
    return (await this.#db.em().getConnection().execute(
      `select id, step, scope, question, encode(vector, 'base64') as vector, answer, expires_at from semantic_cache_entries
        where account_id = ? and embedder = ? and expires_at > now() order by created_at desc limit ?`,
      [accountId, embedder, limit],
    )) as StoredRow[];
  }
}
