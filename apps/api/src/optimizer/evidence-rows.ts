// The optimizer's evidence as stored rows: each replica writes its probes, graded served answers
// and judge pairs through the meter, and reads the rows every replica wrote, newest first after
// a cursor, skipping those it already holds.
import type { Database } from '../db/database.ts';
import type { Meter } from '../meter/meter.ts';
import type { EvidenceRow } from '../meter/rows.ts';
import { newId } from '../security/secrets.ts';
import type { CallEvent } from '../wire/events.ts';
import type { StepKey } from './decide-input.ts';

/** Evidence rows read per query. At start, reads go on while they bring at least half a batch of new rows. */
const LOAD_BATCH = 20_000;

/** An evidence row as read back (drivers differ on the timestamp's type). */
export type LoadedRow = Omit<EvidenceRow, 'created_at'> & { created_at: Date | string };

export class EvidenceRows {
  readonly #db: Database;
  readonly #meter: Meter;
  /** Takes in a row new to this replica; `at` is when it was made, in ms. */
  readonly #apply: (row: LoadedRow, at: number) => void;
  #lastLoaded = new Date(0);
  /**
   * Evidence rows this replica already holds (its own, and those loaded), by id, with when
   * they were made: a load skips them. Only rows a later load could still return are kept.
   */
  readonly #seen = new Map<string, number>();

  constructor(db: Database, meter: Meter, apply: (row: LoadedRow, at: number) => void) {
    this.#db = db;
    this.#meter = meter;
    this.#apply = apply;
  }

  /** Reads all the stored evidence, batch after batch, until a read brings less than half a batch of new rows. */
  async loadAll(): Promise<void> {
    let fresh = LOAD_BATCH;
    while (fresh >= LOAD_BATCH / 2) fresh = await this.load();
  }

  /** Reads the evidence newer than the cursor; returns how many rows were new here. */
  async load(): Promise<number> {
    const since = this.#lastLoaded;
    const rows = (await this.#db
      .em()
      .getConnection()
      .execute('select * from evidence where created_at > ? order by created_at asc limit ?', [since.toISOString(), LOAD_BATCH])) as LoadedRow[];
    let fresh = 0;
    for (const r of rows) {
      if (this.#seen.has(r.id)) continue;
      fresh++;
      // drivers differ: a Date from node-postgres, the text of the timestamp from PGlite's wire
      const at = new Date(r.created_at).getTime();
      this.#seen.set(r.id, at);
      if (at - 5_000 > this.#lastLoaded.getTime()) this.#lastLoaded = new Date(at - 5_000);
      this.#apply(r, at);
    }
    // a load asks only for rows newer than #lastLoaded: older ids can never come back
    const forgetBefore = this.#lastLoaded.getTime() - 60_000;
    for (const [id, at] of this.#seen) if (at < forgetBefore) this.#seen.delete(id);
    return fresh;
  }

  /** How many evidence row ids are held to skip on the next load (bounded by the load window, not by history). */
  get seen(): number {
    return this.#seen.size;
  }

  /** A new evidence row of this replica's (a load will skip it). */
  row(step: StepKey, kind: 'probe' | 'served' | 'judge', sample: Record<string, unknown>): EvidenceRow {
    const row: EvidenceRow = {
      id: newId('ev'),
      account_id: step.accountId,
      workflow_id: step.workflowId,
      fingerprint: step.fingerprint,
      release: step.release,
      kind,
      created_at: new Date().toISOString(),
      sample,
    };
    this.#seen.set(row.id, Date.parse(row.created_at));
    return row;
  }

  /** Writes evidence rows through the meter (write-ahead file, then the database). */
  persist(rows: EvidenceRow[], events: CallEvent[] = [], step?: StepKey): void {
    if (rows.length === 0 && events.length === 0) return;
    this.#meter.recordLearning({
      activity: [],
      events: events.map((e) => ({
        id: newId('evt'),
        account_id: step!.accountId,
        workflow_id: step!.workflowId,
        kind: e.kind,
        created_at: e.at.toISOString(),
        call_id: null,
        payload: e.payload,
      })),
      evidence: rows,
    });
  }
}
