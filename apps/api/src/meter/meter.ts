// Metering off the hot path: each call's records go to the write-ahead file and to
// the database in batches, one JSON parameter per table. File writes are grouped:
// the lines recorded during one turn of the event loop go out in one write, and a
// call is acknowledged only once its line is written (`written()`; the reply layer
// waits for it). Inserts are idempotent by id (and time, on the partitioned tables), so a replay after a crash never
// meters twice. Every row is made storable when it is recorded (input/storable.ts: NUL and lone
// surrogates become U+FFFD), and a batch PostgreSQL refuses for what a row holds is split until
// the refused rows are found: they are quarantined (meter/quarantine.ts) and the rest is written.
// A connection outage is different: the whole batch stays on disk and is retried.
import { CompiledQuery } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { conflictKeys, tables, type MeterBatch } from './rows.ts';
import { WriteAheadLog } from './wal.ts';
import { isDataError, MeterQuarantine, type MeterKind } from './quarantine.ts';
import { storableJson } from '../input/storable.ts';

export type { ActivityRow, CallRow, EventRow, LedgerRow, MeterBatch } from './rows.ts';

const KEYS = Object.keys(tables) as (keyof MeterBatch)[];
/** Written lines reach the disk (fdatasync) at most this long after their write. */
const SYNC_MS = 50;

/**
 * Adds the calls this statement inserted (not those a replay finds already stored) to the
 * running totals. Rows are taken in key order, so two replicas' batches lock shared totals
 * rows in the same order and never deadlock.
 */
const CALL_TOTALS = `w_call_totals as (insert into call_totals
  select account_id, workflow_id, coalesce(saving_source, ''), count(*), sum(baseline_micros), sum(actual_micros), sum(saving_micros)
    from w_calls group by 1, 2, 3 order by 1, 2, 3
  on conflict (account_id, workflow_id, saving_source) do update set
    calls = call_totals.calls + excluded.calls,
    baseline_micros = call_totals.baseline_micros + excluded.baseline_micros,
    actual_micros = call_totals.actual_micros + excluded.actual_micros,
    saving_micros = call_totals.saving_micros + excluded.saving_micros)`;

/** The same calls added to the hourly and per-minute rollups of the savings chart (UTC), in key order too. */
const CALL_ROLLUPS = `w_call_rollups as (insert into call_rollups
  select account_id, g.grain, date_trunc(g.grain, created_at, 'UTC'), coalesce(saving_source, ''), count(*), sum(baseline_micros), sum(actual_micros), sum(saving_micros)
    from w_calls, (values ('hour'), ('minute')) as g(grain) group by 1, 2, 3, 4 order by 1, 2, 3, 4
  on conflict (account_id, grain, at, saving_source) do update set
    calls = call_rollups.calls + excluded.calls,
    baseline_micros = call_rollups.baseline_micros + excluded.baseline_micros,
    actual_micros = call_rollups.actual_micros + excluded.actual_micros,
    saving_micros = call_rollups.saving_micros + excluded.saving_micros)`;

/**
 * Applies learning lines (migration 0023) inserted but not yet applied to their calls: their spend
 * joins the call's exploration and actual cost (its saving drops by as much), and the running
 * totals and rollups move by the same amounts. A separate statement after the inserts, so it sees
 * a call recorded in the same batch; marking the line applied in the same statement makes a
 * replayed line (inserted once, by id) add nothing.
 */
const APPLY_LEARNING = `with l as (update call_learning set applied = true
    where not applied and id in (select jsonb_array_elements($1::jsonb)->>'id') returning id, call_created_at, exploration_micros, detail),
  c as (update call_records r set exploration_micros = r.exploration_micros + l.exploration_micros,
      detail = r.detail || jsonb_build_object('learning', l.detail),
      actual_micros = r.actual_micros + l.exploration_micros, saving_micros = r.saving_micros - l.exploration_micros
    from l where r.id = l.id and r.created_at = l.call_created_at
    returning r.account_id, r.workflow_id, r.created_at, coalesce(r.saving_source, '') as source, l.exploration_micros as spent),
  t as (insert into call_totals select account_id, workflow_id, source, 0, 0, sum(spent), -sum(spent)
      from c group by 1, 2, 3 order by 1, 2, 3
    on conflict (account_id, workflow_id, saving_source) do update set
      actual_micros = call_totals.actual_micros + excluded.actual_micros, saving_micros = call_totals.saving_micros + excluded.saving_micros)
  insert into call_rollups select account_id, g.grain, date_trunc(g.grain, created_at, 'UTC'), source, 0, 0, sum(spent), -sum(spent)
      from c, (values ('hour'), ('minute')) as g(grain) group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (account_id, grain, at, saving_source) do update set
      actual_micros = call_rollups.actual_micros + excluded.actual_micros, saving_micros = call_rollups.saving_micros + excluded.saving_micros`;

/** Rows waiting for the database, per table, each already serialized (once, for its file line). */
type JsonBatch = Record<keyof MeterBatch, string[]>;

function emptyBatch(): JsonBatch {
  return { calls: [], activity: [], events: [], evidence: [], outcomes: [], recordings: [], ledger: [], learning: [] };
}

function merge(into: JsonBatch, from: JsonBatch): void {
  for (const key of KEYS) for (const row of from[key]) into[key].push(row);
}

/**
 * Adds a line's rows replayed from the file to `into`, made storable: a file an earlier version
 * wrote may hold NUL or lone surrogates. A line that is not an object, or a table that is not a
 * list, holds nothing the meter wrote; a row that is not an object is left for the database to refuse (quarantined).
 */
function mergeRows(into: JsonBatch, from: unknown): void {
  if (!from || typeof from !== 'object' || Array.isArray(from)) return;
  for (const key of KEYS) {
    const rows = (from as Record<string, unknown>)[key];
    if (Array.isArray(rows)) for (const row of rows) into[key].push(storableJson(row));
  }
}

/** One row of a batch, with its table: the unit the meter splits a refused batch into. */
interface Item {
  kind: MeterKind;
  json: string;
}

function itemsOf(batch: JsonBatch): Item[] {
  return KEYS.flatMap((kind) => batch[kind].map((json) => ({ kind, json })));
}

function batchOf(items: Item[]): JsonBatch {
  const batch = emptyBatch();
  for (const i of items) batch[i.kind].push(i.json);
  return batch;
}

export class Meter {
  readonly #db: Database;
  readonly #wal: WriteAheadLog;
  readonly #logger: Logger;
  readonly #flushMs: number;
  #pending = emptyBatch();
  /** Closed segments whose records are pending or being written. */
  #segments: string[] = [];
  #timer: NodeJS.Timeout | null = null;
  #syncTimer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;
  #started = false;
  #closed = false;
  /** Lines recorded but not yet written to the file, and who waits for them. */
  #unwritten: string[] = [];
  /** Those lines' rows: they join the database's batch only once their line is in the file. */
  #unwrittenRows = emptyBatch();
  #waiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  #writeScheduled = false;

  /** Accounts whose wallet a recorded call debited, since the last write; told once their rows are in the database. */
  #walletDebited = new Set<string>();
  #onWalletDebited: ((accounts: Set<string>) => void) | null = null;

  /** Sees every batch as it is recorded (the metrics). */
  readonly #observe: ((batch: MeterBatch) => void) | undefined;

  /** Rows the database refused for what they hold, set aside so their batch is written (the admin sees and replays them). */
  readonly quarantine: MeterQuarantine;

  /** `quarantined` hears how many rows were newly set aside (the metrics' counter). */
  constructor(opts: { db: Database; walDir: string; logger: Logger; flushMs: number; observe?: (batch: MeterBatch) => void; quarantined?: (rows: number) => void }) {
    this.#observe = opts.observe;
    this.#db = opts.db;
    this.#wal = new WriteAheadLog(opts.walDir);
    this.#logger = opts.logger;
    this.#flushMs = opts.flushMs;
    this.quarantine = new MeterQuarantine({
      db: opts.db,
      logger: opts.logger,
      counted: opts.quarantined,
      write: (kind, json) => {
        const batch = emptyBatch();
        batch[kind].push(json);
        return this.#write(batch);
      },
    });
  }

  /** Hears which accounts' wallets were debited by calls just written to the database (auto top-up, wallet-low). */
  onWalletDebited(listener: (accounts: Set<string>) => void): void {
    this.#onWalletDebited = listener;
  }

  get pending(): number {
    const p = this.#pending;
    return KEYS.reduce((n, key) => n + p[key].length, 0);
  }

  async start(): Promise<void> {
    for (const seg of this.#wal.leftovers()) {
      const batch = emptyBatch();
      for (const e of seg.entries) mergeRows(batch, e);
      await this.#store(batch, 'replay'); // a row the database refuses is quarantined, never fatal
      this.#wal.remove(seg.path);
      if (batch.calls.length) this.#logger.info({ calls: batch.calls.length }, 'replayed metering records left by an earlier run');
    }
    this.#started = true;
    this.#armFlush();
  }

  /**
   * The flush and the write-ahead file's sync run on timers armed by what they have to do (a row
   * recorded, a line written) rather than on fixed intervals: an idle replica wakes for neither,
   * and a loaded one flushes and syncs exactly as often as before (every flushMs, every 50 ms).
   */
  #armFlush(): void {
    if (this.#timer !== null || !this.#started || this.#closed) return;
    this.#timer = setTimeout(this.#flushTick, this.#flushMs);
    this.#timer.unref();
  }

  readonly #flushTick = (): void => {
    this.#timer = null;
    if (this.#flushing) return this.#armFlush();
    // a failed write keeps its rows pending: they are tried again one interval later
    void this.flush().finally(() => {
      if (this.pending > 0 || this.#segments.length > 0) this.#armFlush();
    });
  };

  #armSync(): void {
    if (this.#syncTimer !== null || this.#closed) return;
    this.#syncTimer = setTimeout(this.#syncTick, SYNC_MS);
    this.#syncTimer.unref();
  }

  readonly #syncTick = (): void => {
    this.#syncTimer = null;
    this.#wal.syncSoon();
    // a sync already under way leaves the newer lines dirty: they go at the next tick
    if (this.#wal.dirty) this.#armSync();
  };

  /**
   * Rows that are no call record: what a call learned after its answer, evidence, outcomes.
   * Kept apart from `record` so that the call records have one writer (pipeline/meter-call.ts).
   */
  recordLearning(rows: Omit<MeterBatch, 'calls' | 'activity' | 'events'> & Partial<Pick<MeterBatch, 'activity' | 'events'>>): void {
    this.record({ calls: [], activity: [], events: [], ...rows });
  }

  /**
   * Records one call's rows. Its line reaches the write-ahead file with the others
   * recorded in this turn of the event loop; acknowledge the call after `written()`.
   */
  record(batch: MeterBatch): void {
    this.#observe?.(batch);
    if (batch.ledger) for (const l of batch.ledger) if (l.book === 'wallet' && l.amount_micros < 0) this.#walletDebited.add(l.account_id);
    // Each row is serialized once: the file line is built from the same text the database gets.
    const parts: string[] = [];
    for (const key of KEYS) {
      const rows = batch[key];
      if (rows === undefined) continue;
      const pending = this.#unwrittenRows[key];
      let list = '';
      for (let i = 0; i < rows.length; i++) {
        const json = storableJson(rows[i]);
        pending.push(json);
        list = i === 0 ? json : `${list},${json}`;
      }
      parts.push(`"${key}":[${list}]`);
    }
    this.#unwritten.push(`{${parts.join(',')}}\n`);
    if (!this.#writeScheduled) {
      this.#writeScheduled = true;
      setImmediate(this.#writeLines);
    }
    this.#armFlush();
  }

  /** Settles once every line recorded so far is in the write-ahead file; null when they already are. */
  written(): Promise<void> | null {
    if (this.#unwritten.length === 0) return null;
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** One write for every line recorded since the last one; wakes their waiters. */
  readonly #writeLines = (): void => {
    this.#writeScheduled = false;
    if (this.#unwritten.length === 0) return;
    const lines = this.#unwritten;
    const rows = this.#unwrittenRows;
    const waiters = this.#waiters;
    this.#unwritten = [];
    this.#unwrittenRows = emptyBatch();
    this.#waiters = [];
    try {
      this.#wal.appendLines(lines.length === 1 ? lines[0]! : lines.join(''));
      this.#armSync();
    } catch (err) {
      // Not durable: those calls answer with an error, and are not metered either. A client
      // told 500 retries (its Idempotency-Key is released for that), and a call both metered
      // here and answered again on the retry would be charged twice for one answer.
      this.#logger.error({ err, calls: lines.length }, 'could not write metering records to the write-ahead file; those calls fail unmetered');
      for (const w of waiters) w.reject(err);
      return;
    }
    merge(this.#pending, rows);
    for (const w of waiters) w.resolve();
  };

  /** Writes everything recorded before this call (waiting out a flush already under way). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.pending === 0 && this.#unwritten.length === 0 && this.#segments.length === 0) return;
    this.#flushing = this.#flushOnce().finally(() => (this.#flushing = null));
    return this.#flushing;
  }

  async #flushOnce(): Promise<void> {
    this.#writeLines(); // every pending row's line goes to the segment that closes now
    if (this.pending) this.#segments.push(this.#wal.rotate());
    const batch = this.#pending;
    this.#pending = emptyBatch();
    const debited = this.#walletDebited;
    this.#walletDebited = new Set();
    try {
      await this.#store(batch, 'flush');
      for (const s of this.#segments.splice(0)) this.#wal.remove(s);
      if (debited.size > 0) this.#onWalletDebited?.(debited);
    } catch (err) {
      for (const a of debited) this.#walletDebited.add(a);
      merge(batch, this.#pending);
      this.#pending = batch;
      this.#logger.warn({ err, calls: batch.calls.length }, 'metering write failed; kept on disk and retried');
    }
  }

  /**
   * Writes a batch; when the database refuses it for what a row holds, halves it until each
   * refused row stands alone, writes the rest and quarantines those rows (about 2·log2(n)
   * statements per bad row; every insert is idempotent, so a half written twice is written once).
   * Throws on anything else (an outage): the caller keeps the batch on disk and retries it.
   */
  async #store(batch: JsonBatch, source: 'flush' | 'replay'): Promise<void> {
    try {
      await this.#write(batch);
    } catch (err) {
      if (!isDataError(err)) throw err;
      // the code and message only: PostgreSQL's detail may quote the row (a prompt, an answer)
      const sqlstate = (err as { code?: string }).code;
      this.#logger.warn({ sqlstate, reason: err instanceof Error ? err.message : String(err), source }, 'metering batch refused for what a row holds; splitting it to set the refused rows aside');
      await this.#split(itemsOf(batch), source, err);
    }
  }

  async #split(items: Item[], source: 'flush' | 'replay', err: unknown): Promise<void> {
    if (items.length === 1) return this.quarantine.add(items[0]!.kind, items[0]!.json, err, source);
    const mid = items.length >> 1;
    for (const half of [items.slice(0, mid), items.slice(mid)]) {
      try {
        await this.#write(batchOf(half));
      } catch (e) {
        if (!isDataError(e)) throw e;
        await this.#split(half, source, e);
      }
    }
  }

  /** One statement (one round trip, atomic): an insert per non-empty table, as data-modifying CTEs; then learning lines applied to their calls. */
  async #write(batch: JsonBatch): Promise<void> {
    const inserts: string[] = [];
    const params: string[] = [];
    for (const kind of KEYS) {
      const rows = batch[kind];
      if (rows.length === 0) continue;
      const table = tables[kind];
      params.push(`[${rows.join(',')}]`);
      const returning = kind === 'calls' ? ' returning account_id, workflow_id, created_at, saving_source, baseline_micros, actual_micros, saving_micros' : '';
      inserts.push(`w_${kind} as (insert into ${table} select * from jsonb_populate_recordset(null::${table}, $${params.length}::jsonb) on conflict (${conflictKeys[kind]}) do nothing${returning})`);
      if (kind === 'calls') inserts.push(CALL_TOTALS, CALL_ROLLUPS);
    }
    if (inserts.length === 0) return;
    const client = this.#db.em().getConnection().getClient();
    await client.executeQuery(CompiledQuery.raw(`with ${inserts.join(', ')} select 1`, params));
    if (batch.learning.length > 0) await client.executeQuery(CompiledQuery.raw(APPLY_LEARNING, [`[${batch.learning.join(',')}]`]));
  }

  /** Whether the write-ahead file's disk takes a write now (readiness: a full disk fails every call). */
  writable(): boolean {
    return this.#wal.canWrite();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#syncTimer) clearTimeout(this.#syncTimer);
    this.#timer = this.#syncTimer = null;
    await this.#flushing;
    await this.flush();
    await this.#wal.removed();
    this.#wal.close();
  }
}
