// The meter's quarantine: rows PostgreSQL refused for what they hold (a data exception, a
// constraint, a limit), set aside in `meter_quarantine` (migration 0020) so the rest of their batch
// is written. A connection outage is not a reason: those rows stay on disk and are retried. The
// admin lists the quarantine and replays a row once the cause is fixed, or discards it
// (GET /v1/admin/meter/quarantine, routes/admin-meter.ts).
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { storableText } from '../input/storable.ts';
import { tables, type MeterBatch } from './rows.ts';

export type MeterKind = keyof MeterBatch;

/**
 * SQLSTATE classes that say the row itself is refused, not the connection: 22 data exception
 * (NUL, a bad escape, a number out of range, a malformed time), 23 integrity constraint
 * violation (a check, a missing account), 54 program limit exceeded (a value too large).
 * Anything else (08 connection, 53 resources, 57 shutdown, 40 rollback, no SQLSTATE at all)
 * keeps the rows on disk for the next try.
 */
const DATA_CLASSES = new Set(['22', '23', '54']);

export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.length === 5 && DATA_CLASSES.has(code.slice(0, 2));
}

export type QuarantineStatus = 'quarantined' | 'replayed' | 'discarded';

export interface QuarantinedRowView {
  id: string;
  /** The meter's name for the row's kind (calls, activity, events, evidence, outcomes, recordings, ledger). */
  kind: string;
  /** The table the row was for. */
  table: string | null;
  account_id: string | null;
  /** PostgreSQL's error code, e.g. 22P05 (a NUL), 22003 (out of range), 23514 (a check). */
  sqlstate: string | null;
  reason: string;
  /** Where it was refused: a batch being written (`flush`) or the write-ahead replay at boot (`replay`). */
  source: 'flush' | 'replay';
  status: QuarantineStatus;
  created_at: string;
  resolved_at: string | null;
  /** The row as the meter had it (its JSON parsed; the text itself when it does not parse). */
  row: unknown;
}

interface StoredRow {
  id: string;
  kind: string;
  account_id: string | null;
  row_json: string;
  sqlstate: string | null;
  reason: string;
  source: 'flush' | 'replay';
  status: QuarantineStatus;
  created_at: Date | string;
  resolved_at: Date | string | null;
}

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

function view(r: StoredRow): QuarantinedRowView {
  let row: unknown;
  try {
    row = JSON.parse(r.row_json);
  } catch {
    row = r.row_json;
  }
  return {
    id: r.id,
    kind: r.kind,
    table: (tables as Record<string, string>)[r.kind] ?? null,
    account_id: r.account_id,
    sqlstate: r.sqlstate,
    reason: r.reason,
    source: r.source,
    status: r.status,
    created_at: iso(r.created_at)!,
    resolved_at: iso(r.resolved_at),
    row,
  };
}

function accountOf(json: string): string | null {
  try {
    const v = (JSON.parse(json) as { account_id?: unknown } | null)?.account_id;
    return typeof v === 'string' ? storableText(v).slice(0, 200) : null;
  } catch {
    return null;
  }
}

export class MeterQuarantine {
  readonly #db: Database;
  readonly #logger: Logger;
  readonly #write: (kind: MeterKind, json: string) => Promise<void>;
  readonly #counted: (rows: number) => void;

  /** `write` stores one row as the meter does; `counted` hears how many rows were newly set aside (the metric). */
  constructor(deps: { db: Database; logger: Logger; write: (kind: MeterKind, json: string) => Promise<void>; counted?: ((rows: number) => void) | undefined }) {
    this.#db = deps.db;
    this.#logger = deps.logger;
    this.#write = deps.write;
    this.#counted = deps.counted ?? (() => {});
  }

  /** The same row refused twice (a write retried, a file replayed again) is one entry. */
  static idOf(kind: string, json: string): string {
    return `mq_${createHash('sha256').update(kind).update('\n').update(json).digest('hex').slice(0, 32)}`;
  }

  /** Sets one refused row aside. Throws only when the database cannot be reached (the caller keeps the row on disk). */
  async add(kind: MeterKind, json: string, err: unknown, source: 'flush' | 'replay'): Promise<void> {
    const id = MeterQuarantine.idOf(kind, json);
    const code = (err as { code?: unknown } | null)?.code;
    const sqlstate = typeof code === 'string' ? storableText(code).slice(0, 5) : null;
    const reason = storableText(err instanceof Error ? err.message : String(err)).slice(0, 2000);
    const res = (await this.#db
      .em()
      .getConnection()
      .execute(
        'insert into meter_quarantine (id, kind, account_id, row_json, sqlstate, reason, source) values (?, ?, ?, ?, ?, ?, ?) on conflict (id) do nothing',
        [id, kind, accountOf(json), storableText(json), sqlstate, reason, source],
        'run',
      )) as { affectedRows?: number };
    if ((res.affectedRows ?? 0) > 0) {
      this.#counted(1);
      this.#logger.error({ id, kind, table: tables[kind], sqlstate, reason, source }, 'metering row refused by the database; quarantined (see GET /v1/admin/meter/quarantine), the rest of its batch is written');
    }
  }

  /** Newest first; `starting_after` (an entry's id) pages on; `status` narrows (default: those still quarantined). */
  async list(q: { status: QuarantineStatus | 'all'; limit: number; starting_after?: string | undefined }): Promise<QuarantinedRowView[]> {
    const conn = this.#db.em().getConnection();
    const params: unknown[] = [];
    let where = 'true';
    if (q.status !== 'all') {
      where += ' and status = ?';
      params.push(q.status);
    }
    if (q.starting_after) {
      const [after] = (await conn.execute('select created_at from meter_quarantine where id = ?', [q.starting_after])) as { created_at: Date }[];
      if (!after) throw new ApiError('not_found', `No quarantined row ${q.starting_after}.`, { param: 'starting_after' });
      where += ' and (created_at, id) < ((select created_at from meter_quarantine where id = ?), ?)';
      params.push(q.starting_after, q.starting_after);
    }
    params.push(q.limit);
    const rows = (await conn.execute(`select * from meter_quarantine where ${where} order by created_at desc, id desc limit ?`, params)) as StoredRow[];
    return rows.map(view);
  }

  async get(id: string): Promise<QuarantinedRowView> {
    return view(await this.#row(id));
  }

  async #row(id: string): Promise<StoredRow> {
    const [row] = (await this.#db.em().getConnection().execute('select * from meter_quarantine where id = ?', [id])) as StoredRow[];
    if (!row) throw new ApiError('not_found', `No quarantined row ${id}.`, { param: 'id' });
    return row;
  }

  async #resolve(id: string, status: QuarantineStatus): Promise<QuarantinedRowView> {
    const [row] = (await this.#db
      .em()
      .getConnection()
      .execute(`update meter_quarantine set status = ?, resolved_at = now() where id = ? and status = 'quarantined' returning *`, [status, id])) as StoredRow[];
    if (!row) throw new ApiError('conflict', `Row ${id} is no longer quarantined: another request resolved it.`, { param: 'id' });
    return view(row);
  }

  /**
   * Writes the row again, as the meter would (idempotent: a row already stored is not stored
   * twice), once the admin has fixed what refused it. Refused again: 409 with PostgreSQL's reason,
   * and the row stays quarantined with that reason.
   */
  async replay(id: string): Promise<QuarantinedRowView> {
    const row = await this.#row(id);
    if (row.status !== 'quarantined') throw new ApiError('conflict', `Row ${id} is already ${row.status}.`, { param: 'id' });
    if (!(row.kind in tables)) throw new ApiError('conflict', `Row ${id} is for an unknown kind ${row.kind}; discard it.`, { param: 'id' });
    try {
      await this.#write(row.kind as MeterKind, row.row_json);
    } catch (err) {
      if (!isDataError(err)) throw err;
      const code = (err as { code?: string }).code ?? null;
      const reason = storableText(err instanceof Error ? err.message : String(err)).slice(0, 2000);
      await this.#db.em().getConnection().execute('update meter_quarantine set sqlstate = ?, reason = ? where id = ?', [code, reason, id], 'run');
      throw new ApiError('conflict', `The database still refuses row ${id}: ${reason} (SQLSTATE ${code ?? 'none'}). Fix the cause and replay, or discard it.`, { param: 'id', extra: { sqlstate: code } });
    }
    this.#logger.info({ id, kind: row.kind }, 'quarantined metering row replayed by the admin');
    return this.#resolve(id, 'replayed');
  }

  /** Gives the row up: it stays listed as discarded, and is never written. */
  async discard(id: string): Promise<QuarantinedRowView> {
    const row = await this.#row(id);
    if (row.status !== 'quarantined') throw new ApiError('conflict', `Row ${id} is already ${row.status}.`, { param: 'id' });
    this.#logger.info({ id, kind: row.kind }, 'quarantined metering row discarded by the admin');
    return this.#resolve(id, 'discarded');
  }
}
