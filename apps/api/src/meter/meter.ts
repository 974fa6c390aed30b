// Metering off the hot path: call records and activity entries go to the
// write-ahead file at once and to the database in batches. Inserts are idempotent
// by id, so a replay after a crash never meters a call twice.
import type { Database } from '../db/database.ts';
import { ActivityEntry, CallRecord, WorkflowEvent } from '../db/entities.ts';
import type { Logger } from '../logger.ts';
import { WriteAheadLog } from './wal.ts';

export type CallRow = Omit<CallRecord, 'createdAt'> & { createdAt: Date };
export type ActivityRow = Omit<ActivityEntry, 'createdAt'> & { createdAt: Date };
export type EventRow = Omit<WorkflowEvent, 'createdAt'> & { createdAt: Date };
type Entry = { t: 'call'; row: CallRow } | { t: 'activity'; row: ActivityRow } | { t: 'event'; row: EventRow };

export class Meter {
  readonly #db: Database;
  readonly #wal: WriteAheadLog;
  readonly #logger: Logger;
  readonly #flushMs: number;
  #pending: Entry[] = [];
  /** Closed segments whose entries are in #pending or being written. */
  #segments: string[] = [];
  #timer: NodeJS.Timeout | null = null;
  #syncTimer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;

  constructor(opts: { db: Database; walDir: string; logger: Logger; flushMs: number }) {
    this.#db = opts.db;
    this.#wal = new WriteAheadLog(opts.walDir);
    this.#logger = opts.logger;
    this.#flushMs = opts.flushMs;
  }

  get pending(): number {
    return this.#pending.length;
  }

  async start(): Promise<void> {
    for (const seg of this.#wal.leftovers()) {
      const entries = seg.entries.map(revive);
      await this.#write(entries);
      this.#wal.remove(seg.path);
      if (entries.length) this.#logger.info({ entries: entries.length }, 'replayed metering records left by an earlier run');
    }
    this.#timer = setInterval(() => {
      if (!this.#flushing) void this.flush();
    }, this.#flushMs);
    this.#syncTimer = setInterval(() => this.#wal.sync(), 50);
    this.#timer.unref();
    this.#syncTimer.unref();
  }

  record(call: CallRow, activity: ActivityRow[], events: EventRow[] = []): void {
    const entries: Entry[] = [
      { t: 'call', row: call },
      ...activity.map((row) => ({ t: 'activity' as const, row })),
      ...events.map((row) => ({ t: 'event' as const, row })),
    ];
    for (const e of entries) this.#wal.append(e);
    this.#pending.push(...entries);
  }

  /** Writes everything recorded before this call (waiting out a flush already under way). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#pending.length === 0 && this.#segments.length === 0) return;
    this.#flushing = this.#flushOnce().finally(() => (this.#flushing = null));
    return this.#flushing;
  }

  async #flushOnce(): Promise<void> {
    if (this.#pending.length) this.#segments.push(this.#wal.rotate());
    const batch = this.#pending;
    this.#pending = [];
    try {
      await this.#write(batch);
      for (const s of this.#segments.splice(0)) this.#wal.remove(s);
    } catch (err) {
      this.#pending = batch.concat(this.#pending);
      this.#logger.warn({ err, entries: batch.length }, 'metering write failed; kept on disk and retried');
    }
  }

  async #write(entries: Entry[]): Promise<void> {
    const calls = entries.filter((e) => e.t === 'call').map((e) => e.row as CallRow);
    const acts = entries.filter((e) => e.t === 'activity').map((e) => e.row as ActivityRow);
    const events = entries.filter((e) => e.t === 'event').map((e) => e.row as EventRow);
    const em = this.#db.em();
    await em.transactional(async (tx) => {
      for (let i = 0; i < calls.length; i += 500) {
        await tx.createQueryBuilder(CallRecord).insert(calls.slice(i, i + 500)).onConflict('id').ignore().execute();
      }
      for (let i = 0; i < acts.length; i += 500) {
        await tx.createQueryBuilder(ActivityEntry).insert(acts.slice(i, i + 500)).onConflict('id').ignore().execute();
      }
      for (let i = 0; i < events.length; i += 500) {
        await tx.createQueryBuilder(WorkflowEvent).insert(events.slice(i, i + 500)).onConflict('id').ignore().execute();
      }
    });
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#syncTimer) clearInterval(this.#syncTimer);
    await this.#flushing;
    await this.flush();
    this.#wal.close();
  }
}

function revive(raw: unknown): Entry {
  const e = raw as Entry;
  return { ...e, row: { ...e.row, createdAt: new Date(e.row.createdAt) } } as Entry;
}
