// A write-ahead file for metering: every record is appended (a plain write, no
// wait; the meter groups the lines of one event-loop turn into one write) before
// its response completes, fsynced on a short timer, and removed once the database
// holds it. At start, whatever a killed process left is replayed.
import { closeSync, fdatasync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, statfsSync, writeSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** What the readiness probe writes: about the size of a busy event-loop turn's lines. */
const PROBE = Buffer.alloc(16_384);

/**
 * Free space under the file below which the replica says it is not ready: about 500 calls' lines,
 * seconds of a busy replica's traffic, which is what a balancer takes to notice. A disk filled by
 * something else is freed a little each time a flushed segment is removed; without a reserve the
 * probe then passes, the replica stays in the balancer, and its next calls fail on the full disk.
 */
export const READY_RESERVE_BYTES = 1024 * 1024;

/** Writes all of `buf`, going on after a short write (a nearly full disk takes part of one); throws when the disk refuses. */
function writeAll(fd: number, buf: Buffer): void {
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done);
}

export class WriteAheadLog {
  readonly #dir: string;
  #fd: number;
  #path: string;
  #seq = 0;
  /** Bytes of whole lines in the open segment: where a failed append is cut back to. */
  #size = 0;
  #dirty = false;
  #syncing = false;
  readonly #removals = new Set<Promise<void>>();

  readonly #reserveBytes: number;

  constructor(dir: string, opts: { readyReserveBytes?: number } = {}) {
    this.#dir = dir;
    this.#reserveBytes = opts.readyReserveBytes ?? READY_RESERVE_BYTES;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    [this.#path, this.#fd] = this.#open();
  }

  #open(): [string, number] {
    const path = join(this.#dir, `meter-${Date.now()}-${process.pid}-${String(++this.#seq).padStart(6, '0')}.log`);
    return [path, openSync(path, 'a', 0o600)];
  }

  /** Segments left by an earlier process, oldest first, with their parsed entries. */
  leftovers(): { path: string; entries: unknown[] }[] {
    return readdirSync(this.#dir)
      .filter((f) => f.endsWith('.log') && join(this.#dir, f) !== this.#path)
      .sort()
      .map((f) => {
        const path = join(this.#dir, f);
        const entries = readFileSync(path, 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .flatMap((l) => {
            try {
              return [JSON.parse(l) as unknown];
            } catch {
              return []; // a torn last line from a crash mid-write: its response never completed
            }
          });
        return { path, entries };
      });
  }

  append(entry: unknown): void {
    this.appendLines(JSON.stringify(entry) + '\n');
  }

  /**
   * Appends complete lines (each ending in a newline) in one write, or throws with nothing
   * appended. A full disk can take part of a write (a short write, no error): the rest is
   * written on, and when the disk refuses it the segment is cut back to its last whole line,
   * so no torn fragment is acknowledged, nor glued to the next line (which a replay would
   * then drop with it).
   */
  appendLines(text: string): void {
    const buf = Buffer.from(text, 'utf8');
    try {
      writeAll(this.#fd, buf);
    } catch (err) {
      try {
        ftruncateSync(this.#fd, this.#size); // nothing to cut when the disk took none of it
      } catch {
        // a torn last line is skipped by the replay; the next append still starts clean below
      }
      throw err;
    }
    this.#size += buf.length;
    this.#dirty = true;
  }

  /** Whether lines were written since the last sync began. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /**
   * Whether the file system has its reserve free and takes a write of 16 KiB now (readiness):
   * written to a probe file beside the segments and truncated again. A full disk fails it, as it
   * would fail the calls; a nearly full one fails it first.
   */
  canWrite(): boolean {
    const path = join(this.#dir, 'ready.probe');
    let fd: number | undefined;
    try {
      const fs = statfsSync(this.#dir);
      if (fs.bavail * fs.bsize < this.#reserveBytes) return false;
      fd = openSync(path, 'w', 0o600);
      writeAll(fd, PROBE);
      return true;
    } catch {
      return false;
    } finally {
      if (fd !== undefined) {
        try {
          ftruncateSync(fd, 0);
          closeSync(fd);
        } catch {
          // closing a probe never fails readiness
        }
      }
    }
  }

  /** Flushes to disk now, blocking (rotation and shutdown). */
  sync(): void {
    if (!this.#dirty) return;
    fsyncSync(this.#fd);
    this.#dirty = false;
  }

  /** Flushes to disk on the thread pool, without blocking the event loop (the periodic sync). */
  syncSoon(): void {
    if (!this.#dirty || this.#syncing) return;
    this.#dirty = false;
    this.#syncing = true;
    const fd = this.#fd;
    fdatasync(fd, () => {
      this.#syncing = false;
    });
  }

  /** Starts a new segment and returns the closed one's path, to delete once stored. */
  rotate(): string {
    const closedFd = this.#fd;
    const closed = this.#path;
    [this.#path, this.#fd] = this.#open();
    this.#size = 0;
    this.#dirty = false;
    // flush the closed segment on the thread pool, then close it
    fdatasync(closedFd, () => closeSync(closedFd));
    return closed;
  }

  /**
   * Deletes a segment whose records the database holds, off the event loop (an unlink can wait
   * on the file system's journal). A segment the process exits before deleting is replayed at
   * the next start, which inserts nothing twice.
   */
  remove(path: string): void {
    const done: Promise<void> = unlink(path)
      .catch(() => undefined) // already gone is fine
      .finally(() => this.#removals.delete(done));
    this.#removals.add(done);
  }

  /** Settles once every deletion begun so far is done (shutdown leaves no stored segment behind). */
  async removed(): Promise<void> {
    await Promise.all([...this.#removals]);
  }

  close(): void {
    this.sync();
    closeSync(this.#fd);
  }
}
