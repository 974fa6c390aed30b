// The V8 flags the gateway runs with, kept in node-flags.json so every starter reads one list:
// `npm start` (scripts/toolchain.mjs), the test suite's processes and the benchmarks. A young
// generation capped at 8 MB a semi-space: left to itself V8 grows it to 64 MB a semi-space under
// the first burst of concurrent requests, whatever their size, and RSS keeps the growth
// (docs/decisions.md, "Hostile input: a burst does not grow the heap"). main.ts warns when
// started without them.
import { readFileSync } from 'node:fs';

export const NODE_FLAGS: readonly string[] = JSON.parse(readFileSync(new URL('../node-flags.json', import.meta.url), 'utf8')) as string[];

/** The flags of NODE_FLAGS this process was not started with (node's own command line or NODE_OPTIONS). */
export function missingNodeFlags(): string[] {
  const given = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  return NODE_FLAGS.filter((f) => !given.includes(f.split('=')[0]!));
}
