// Idempotency records of the embedded default, kept on disk beside the meter so that a retry
// after a restart replays its stored answer instead of being dispatched and charged again.
// (With Redis the records live in Redis, which outlives a gateway restart.) One JSON line per
// answered key, appended as the answer is stored, synced to disk on a short timer as the
// meter's write-ahead file is; read back at boot, where lines past their retention are dropped
// and the file is rewritten with what is still live. A torn last line (a process killed
// mid-write) is skipped. The file holds answers: it is the owner's only (0600, in the data
// folder the gateway already keeps owner-only).
import { closeSync, existsSync, fdatasync, fdatasyncSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { IdempotencyRecord } from './store.ts';

/** One stored answer, with when it stops replaying. */
export interface JournalEntry {
  id: string;
  expiresAt: number;
  rec: IdempotencyRecord;
}

const SYNC_MS = 200;
/** The file is rewritten with only its live entries when it has grown past this and doubled since. */
const COMPACT_BYTES = 64 * 1024 * 1024;

function isEntry(v: unknown): v is JournalEntry {
  const e = v as JournalEntry | null;
  return !!e && typeof e.id === 'string' && typeof e.expiresAt === 'number' && !!e.rec && typeof e.rec.fingerprint === 'string' && typeof e.rec.status === 'number' && typeof e.rec.body === 'string' && typeof e.rec.headers === 'string';
}

export class IdempotencyJournal {
  readonly #path: string;
  #fd: number;
  #dirty = false;
  /** The descriptor a background sync is running on, and whether it was retired meanwhile (closed once the sync ends). */
  #syncing: { fd: number; retired: boolean } | null = null;
  #sizeAfterCompaction = 0;
  readonly #timer: NodeJS.Timeout;
  readonly #onError: (e: Error) => void;

  constructor(path: string, onError: (e: Error) => void = () => undefined) {
    this.#path = path;
    this.#onError = onError;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.#fd = openSync(path, 'a', 0o600);
    this.#timer = setInterval(() => this.#sync(), SYNC_MS);
    this.#timer.unref();
  }

  /** The live entries on disk, latest per key; the file is rewritten to hold only them. */
  load(now = Date.now()): JournalEntry[] {
    const live = this.#read(now);
    this.#rewrite(live);
    return live;
  }

  #read(now: number): JournalEntry[] {
    if (!existsSync(this.#path)) return [];
    const byId = new Map<string, JournalEntry>();
    for (const line of readFileSync(this.#path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let e: unknown;
      try {
        e = JSON.parse(line);
      } catch {
        continue; // a line cut short by a crash
      }
      if (!isEntry(e)) continue;
      byId.delete(e.id); // keep insertion order = latest write
      if (e.expiresAt > now) byId.set(e.id, e);
    }
    return [...byId.values()];
  }

  #rewrite(live: JournalEntry[]): void {
    const tmp = `${this.#path}.tmp`;
    writeFileSync(tmp, live.map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 });
    const fd = openSync(tmp, 'r');
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.#path);
    this.#retire(this.#fd);
    this.#fd = openSync(this.#path, 'a', 0o600);
    this.#dirty = false;
    this.#sizeAfterCompaction = fstatSync(this.#fd).size;
  }

  /** Appends one answered key (before its answer leaves). */
  append(entry: JournalEntry): void {
    const buf = Buffer.from(`${JSON.stringify(entry)}\n`);
    let done = 0;
    while (done < buf.length) done += writeSync(this.#fd, buf, done, buf.length - done);
    this.#dirty = true;
    const size = fstatSync(this.#fd).size;
    if (size > COMPACT_BYTES && size > 2 * this.#sizeAfterCompaction) this.#rewrite(this.#read(Date.now()));
  }

  #sync(): void {
    if (!this.#dirty || this.#syncing) return;
    this.#dirty = false;
    const syncing = (this.#syncing = { fd: this.#fd, retired: false });
    fdatasync(syncing.fd, (err) => {
      this.#syncing = null;
      if (syncing.retired) closeSync(syncing.fd);
      if (err) this.#onError(err);
    });
  }

  /** Closes a descriptor no longer written, once no sync runs on it. */
  #retire(fd: number): void {
    if (this.#syncing?.fd === fd) this.#syncing.retired = true;
    else closeSync(fd);
  }

  close(): void {
    clearInterval(this.#timer);
    try {
      if (this.#dirty) fdatasyncSync(this.#fd);
    } finally {
      this.#retire(this.#fd);
    }
  }
}
