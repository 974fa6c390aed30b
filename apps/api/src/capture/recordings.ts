// The recordings domain (spec 2.7, 4.2, 4.5): the tenant's capture settings, the recordings of a
// workflow page by page, the stored responses behind a set of calls, and the retention sweep
// (recordings, and the answer texts the optimizer's evidence may keep only as capture allows).
// Every read checks that the workflow is the tenant's (404 otherwise); the doors only call these.
import { CAPTURE_DEFAULTS, type CaptureSettings, type RecordingView } from '@optimizer/schema';
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { HotStore } from '../hot/store.ts';
import type { Logger } from '../logger.ts';
import type { Meter } from '../meter/meter.ts';
import { storedProbe, type Probe } from '../optimizer/evidence.ts';
import type { RecordingRow } from '../meter/rows.ts';
import { TopicSettings } from '../settings/topic-settings.ts';
import type { Accounts } from '../tenancy/accounts.ts';

type StoredRow = Omit<RecordingRow, 'created_at'> & { created_at: Date | string };

/** Evidence rows rewritten per statement batch, and batches per sweep (a backlog takes several sweeps). */
const EVIDENCE_SWEEP_BATCH = 500;
const EVIDENCE_SWEEP_BATCHES = 20;

function view(r: StoredRow): RecordingView {
  return {
    id: r.id,
    call_id: r.id,
    workflow_id: r.workflow_id,
    created_at: new Date(r.created_at).toISOString(),
    step: r.fingerprint ? { fingerprint: r.fingerprint, label: r.step ?? '' } : null,
    content: r.content,
    redacted: r.redacted,
    requested_model: r.requested_model,
    served_model: r.served_model,
    status: r.status,
    error_code: r.error_code,
    usage: { prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens },
    request: r.request,
    response: r.response,
    meta: r.meta,
  };
}

/** A page's position: the last row's time and id, opaque to clients. */
function encodeCursor(r: RecordingView): string {
  return Buffer.from(`${r.created_at}|${r.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { at: string; id: string } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  const at = bar > 0 ? text.slice(0, bar) : '';
  if (!at || Number.isNaN(Date.parse(at))) throw new ApiError('validation_failed', 'cursor: pass the next_cursor of the previous page.', { param: 'cursor' });
  return { at, id: text.slice(bar + 1) };
}

export class Recordings {
  readonly #db: Database;
  readonly #meter: Meter;
  readonly #accounts: Accounts;
  readonly #logger: Logger;
  readonly #sweepMs: number;
  readonly settings: TopicSettings<CaptureSettings>;
  #timer: NodeJS.Timeout | null = null;

  constructor(deps: { db: Database; hot: HotStore; meter: Meter; accounts: Accounts; logger: Logger; sweepMs: number }) {
    this.#db = deps.db;
    this.#meter = deps.meter;
    this.#accounts = deps.accounts;
    this.#logger = deps.logger;
    this.#sweepMs = deps.sweepMs;
    this.settings = new TopicSettings<CaptureSettings>(deps, 'capture', CAPTURE_DEFAULTS);
  }

  async start(): Promise<void> {
    await this.settings.start();
    this.#timer = setInterval(() => {
      this.sweep().catch((err: unknown) => this.#logger.warn({ err }, 'recordings retention sweep failed; it runs again at the next turn'));
      this.sweepEvidence().catch((err: unknown) => this.#logger.warn({ err }, 'evidence text sweep failed; it runs again at the next turn'));
    }, this.#sweepMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  /**
   * A workflow's recordings, newest first, `limit` a page; `next_cursor` reads the next page
   * (null at the end). `step` (a fingerprint) narrows to one step's recordings.
   */
  async list(accountId: string, workflowId: string, q: { limit: number; cursor?: string | undefined; step?: string | undefined }): Promise<{ data: RecordingView[]; next_cursor: string | null }> {
    await this.#accounts.getWorkflow(accountId, workflowId);
    await this.#meter.flush(); // read your own writes on this replica
    const params: (string | number)[] = [accountId, workflowId];
    let after = '';
    if (q.step) {
      after += ' and fingerprint = ?';
      params.push(q.step);
    }
    if (q.cursor) {
      const c = decodeCursor(q.cursor);
      after += ' and (created_at, id) < (?::timestamptz, ?)';
      params.push(c.at, c.id);
    }
    params.push(q.limit + 1);
    const rows = (await this.#db
      .em()
      .getConnection()
      .execute(`select * from recordings where account_id = ? and workflow_id = ?${after} order by created_at desc, id desc limit ?`, params)) as StoredRow[];
    const data = rows.slice(0, q.limit).map(view);
    return { data, next_cursor: rows.length > q.limit ? encodeCursor(data[data.length - 1]!) : null };
  }

  /** One recording of the tenant's workflow, in full (spec 2.7); 404 when the workflow or the recording is not theirs. */
  async get(accountId: string, workflowId: string, id: string): Promise<RecordingView> {
    await this.#accounts.getWorkflow(accountId, workflowId);
    await this.#meter.flush();
    const [row] = (await this.#db
      .em()
      .getConnection()
      .execute('select * from recordings where account_id = ? and workflow_id = ? and id = ?', [accountId, workflowId, id])) as StoredRow[];
    if (!row) throw new ApiError('not_found', `No recording ${id} on workflow ${workflowId}.`, { param: 'recording_id' });
    return view(row);
  }

  /** The recordings of these calls of the tenant's (the stored responses behind a step's calls), by call id. */
  async forCalls(accountId: string, callIds: string[]): Promise<Map<string, RecordingView>> {
    if (callIds.length === 0) return new Map();
    await this.#meter.flush();
    const rows = (await this.#db
      .em()
      .getConnection()
      .execute(`select * from recordings where account_id = ? and id in (${callIds.map(() => '?').join(', ')})`, [accountId, ...callIds])) as StoredRow[];
    return new Map(rows.map((r) => [r.id, view(r)]));
  }

  /**
   * Deletes every recording older than its tenant's retention (`retention_days`, else the
   * default) as of `now`; how many went. Runs on a timer on every replica (deleting is idempotent).
   */
  async sweep(now: Date = new Date()): Promise<number> {
    await this.#meter.flush(); // a recording still on its way is swept with the others
    const res = (await this.#db
      .em()
      .getConnection()
      .execute(
        `delete from recordings r
          where r.created_at < ?::timestamptz - make_interval(days => coalesce(
            (select (t.settings->>'retention_days')::int from tenant_settings t where t.account_id = r.account_id and t.topic = 'capture'), ?))`,
        [now.toISOString(), CAPTURE_DEFAULTS.retention_days],
        'run',
      )) as { affectedRows?: number };
    return res.affectedRows ?? 0;
  }

  /**
   * Strips the answer texts from evidence that capture no longer lets keep them: every probe
   * row of a tenant whose capture is not `full` (rows of earlier versions kept texts whatever
   * capture said), and under `full` those older than its retention. What agreement compares
   * stays (storedProbe derives it from the text first), so the optimizer reads the row the
   * same; how many rows were rewritten. Runs with the recordings' sweep, a batch at a time.
   */
  async sweepEvidence(now: Date = new Date()): Promise<number> {
    await this.#meter.flush(); // evidence still on its way is swept with the rest
    const conn = this.#db.em().getConnection();
    let stripped = 0;
    for (let batch = 0; batch < EVIDENCE_SWEEP_BATCHES; batch++) {
      const rows = (await conn.execute(
        `select e.id, e.sample from evidence e
          left join tenant_settings t on t.account_id = e.account_id and t.topic = 'capture'
          where e.kind = 'probe' and (e.sample->>'baselineText') is not null
            and (coalesce(t.settings->>'content', ?) <> 'full'
                 or e.created_at < ?::timestamptz - make_interval(days => coalesce((t.settings->>'retention_days')::int, ?)))
          order by e.created_at limit ?`,
        [CAPTURE_DEFAULTS.content, now.toISOString(), CAPTURE_DEFAULTS.retention_days, EVIDENCE_SWEEP_BATCH],
      )) as { id: string; sample: Probe | string }[];
      for (const r of rows) {
        const sample = typeof r.sample === 'string' ? (JSON.parse(r.sample) as Probe) : r.sample;
        await conn.execute('update evidence set sample = ? where id = ?', [JSON.stringify(storedProbe(sample, () => null)), r.id], 'run');
      }
      stripped += rows.length;
      if (rows.length < EVIDENCE_SWEEP_BATCH) break;
    }
    return stripped;
  }
}
