// The metering write-ahead file on a disk that fills up. A full disk takes part of a write
// without an error (a short write); the file then held a torn line that the call was
// acknowledged on, and the next line written after it was glued to the fragment, so a replay
// after a crash dropped both. Here the file's process runs under a file-size limit
// (RLIMIT_FSIZE, which fails writes like a full disk: short, then EFBIG) and the test checks
// that an append is whole or refused, that the file holds only whole lines, and that the
// readiness probe reports the full disk, and a nearly full one (on a small tmpfs) before it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { READY_RESERVE_BYTES, WriteAheadLog } from '../src/meter/wal.ts';

const walTs = fileURLToPath(new URL('../src/meter/wal.ts', import.meta.url));
const meterTs = fileURLToPath(new URL('../src/meter/meter.ts', import.meta.url));
const loggerTs = fileURLToPath(new URL('../src/logger.ts', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs appends of the given line sizes in a child limited to `limit` bytes per file; what each append did. */
function appendUnderLimit(limit: number, sizes: number[]): { dir: string; results: string[]; writable: boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'optimizer-wal-full-'));
  dirs.push(dir);
  const script = `
    import { WriteAheadLog } from ${JSON.stringify(walTs)};
    const wal = new WriteAheadLog(${JSON.stringify(dir)});
    const results = [];
    for (const [i, size] of ${JSON.stringify(sizes)}.entries()) {
      const line = JSON.stringify({ calls: [{ id: 'call-' + i, pad: 'x'.repeat(size) }] }) + '\\n';
      try { wal.appendLines(line); results.push('ok'); } catch (e) { results.push(e.code ?? String(e)); }
    }
    const writable = wal.canWrite();
    wal.close();
    process.stdout.write(JSON.stringify({ results, writable }));
  `;
  const out = execFileSync('prlimit', [`--fsize=${limit}`, process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
  return { dir, ...(JSON.parse(out) as { results: string[]; writable: boolean }) };
}

function segmentLines(dir: string): string[] {
  const [seg] = readdirSync(dir).filter((f) => f.endsWith('.log'));
  return readFileSync(join(dir, seg!), 'utf8').split('\n');
}

describe('the write-ahead file on a full disk', () => {
  it('refuses an append the disk takes only part of, leaving no torn line, and appends whole lines again after it', () => {
    // three lines of ~3 KB fit in 10,000 bytes; the fourth fits only in part; a small fifth fits whole
    const { dir, results } = appendUnderLimit(10_000, [3000, 3000, 3000, 3000, 400]);
    expect(results).toEqual(['ok', 'ok', 'ok', 'EFBIG', 'ok']);
    const lines = segmentLines(dir);
    expect(lines.at(-1)).toBe(''); // the file ends on a whole line
    const ids = lines.filter(Boolean).map((l) => (JSON.parse(l) as { calls: { id: string }[] }).calls[0]!.id);
    expect(ids).toEqual(['call-0', 'call-1', 'call-2', 'call-4']);
  });

  it('meters only the calls whose line is in the file: a refused one fails unmetered, not charged besides its retry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'optimizer-meter-full-'));
    dirs.push(dir);
    const script = `
      import { Writable } from 'node:stream';
      import { Meter } from ${JSON.stringify(meterTs)};
      import { createLogger } from ${JSON.stringify(loggerTs)};
      const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));
      const meter = new Meter({ db: {}, walDir: ${JSON.stringify(dir)}, logger: quiet, flushMs: 600000 });
      const call = (id, size) => ({ calls: [{ id, pad: 'x'.repeat(size) }], activity: [], events: [] });
      const outcome = async (id, size) => { meter.record(call(id, size)); try { await meter.written(); return 'ok'; } catch (e) { return e.code; } };
      const results = [await outcome('call_a', 3000), await outcome('call_b', 3000), await outcome('call_c', 200)];
      process.stdout.write(JSON.stringify({ results, pending: meter.pending }));
    `;
    const out = JSON.parse(execFileSync('prlimit', ['--fsize=5000', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' })) as { results: string[]; pending: number };
    expect(out.results).toEqual(['ok', 'EFBIG', 'ok']);
    // call_b answered 500: it is neither in the file nor in the database's batch
    expect(out.pending).toBe(2);
    const ids = segmentLines(dir).filter(Boolean).map((l) => (JSON.parse(l) as { calls: { id: string }[] }).calls[0]!.id);
    expect(ids).toEqual(['call_a', 'call_c']);
  });

  it('reports the disk as not writable to readiness when a probe write does not fit', () => {
    const full = appendUnderLimit(2_000, []);
    expect(full.writable).toBe(false);
    const roomy = appendUnderLimit(1_000_000, []);
    expect(roomy.writable).toBe(true);
  });

  it('reports a nearly full disk as not ready before its writes fail: under the reserve, though a probe fits', () => {
    // a disk of its own (a 4 MiB tmpfs: the test runs as root, as the fault suite does)
    const dir = mkdtempSync(join(tmpdir(), 'optimizer-wal-reserve-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${4 * 1024 * 1024},mode=0700`, 'tmpfs', dir]);
    try {
      const wal = new WriteAheadLog(join(dir, 'wal'));
      expect(wal.canWrite()).toBe(true);
      // something else fills the disk but half the reserve: a 16 KiB probe still fits
      const free = () => statfsSync(dir).bavail * statfsSync(dir).bsize;
      writeFileSync(join(dir, 'filler'), Buffer.alloc(free() - READY_RESERVE_BYTES / 2));
      expect(free()).toBeGreaterThan(64 * 1024);
      expect(wal.canWrite()).toBe(false);
      rmSync(join(dir, 'filler'));
      expect(wal.canWrite()).toBe(true);
      wal.close();
    } finally {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
