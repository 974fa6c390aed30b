// The meter's grouped write-ahead file: the lines recorded in one turn of the event
// loop go out in one write, and `written()` settles only once they are in the file.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.ts';
import { createLogger } from '../src/logger.ts';
import { Meter, type MeterBatch } from '../src/meter/meter.ts';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

function fileText(dir: string): string {
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('');
}

function batch(id: string): MeterBatch {
  return { calls: [{ id } as MeterBatch['calls'][number]], activity: [], events: [] };
}

describe('meter group commit', () => {
  it('writes the lines of one event-loop turn together, and written() settles after they are in the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meter-wal-'));
    // not started: no database flush runs, only the write-ahead file is used
    const meter = new Meter({ db: {} as Database, walDir: dir, logger: quiet, flushMs: 600_000 });
    expect(meter.written()).toBeNull();
    meter.record(batch('call_a'));
    meter.record(batch('call_b'));
    const waiting = meter.written();
    expect(waiting).not.toBeNull();
    expect(fileText(dir)).toBe(''); // not yet: the write comes at the end of this turn
    await waiting;
    const lines = fileText(dir).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as MeterBatch).calls[0]!.id)).toEqual(['call_a', 'call_b']);
    expect(meter.written()).toBeNull();
    expect(meter.pending).toBe(2);
  });
});
