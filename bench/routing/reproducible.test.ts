// `--reproducible`: the same seed makes the same decisions, so a run repeats exactly (one call at a
// time, each once the learning of the one before is done, the gateway's draws seeded).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from './args.ts';
import { NODE_FLAGS } from '../../apps/api/src/node-flags.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'bench-reproducible-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the routing benchmark, --reproducible', () => {
  it('sends one call at a time, and refuses a concurrency', () => {
    expect(parseArgs(['--reproducible', '--seed', '3'], '/repo')).toMatchObject({ reproducible: true, concurrency: 1, seed: 3 });
    expect(parseArgs([], '/repo')).toMatchObject({ reproducible: false, concurrency: 6, calls: undefined });
    expect(parseArgs(['--calls', 'calls.json'], '/repo')).toMatchObject({ calls: 'calls.json' });
    expect(() => parseArgs(['--reproducible', '--concurrency', '4'], '/repo')).toThrow(UsageError);
  });

  it('repeats a run exactly: every decision, saving and retention the same', { timeout: 300_000 }, async () => {
    const once = async (name: string) => {
      const out = join(dir, `${name}.json`);
      await run(process.execPath, [...NODE_FLAGS, join(import.meta.dirname, 'run.ts'), '--reproducible', '--limit', '150', '--seed', '5', '--out', out], { timeout: 240_000 });
      const r = JSON.parse(readFileSync(out, 'utf8')) as { result: Record<string, unknown>; test: Record<string, unknown>; vendor: unknown };
      const { seconds: _, ...result } = r.result;
      return { result, served: r.test.served, vendor: r.vendor };
    };
    const a = await once('a');
    expect(a.result.calls).toBeGreaterThan(250);
    expect(await once('b')).toEqual(a);
  });
});
