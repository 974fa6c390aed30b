// One meter exit (issue 31, acceptance 1): every call's record is written in one place
// (pipeline/meter-call.ts, behind `meterOutcome`), which one place calls (the runner's
// `finish`, pipeline/run-call.ts), and no stage writes to a transport. Rows that are not a
// call's record (a call's learning after its answer, evidence, outcomes) go through
// `meter.recordLearning`, so a search for call-record writers finds exactly one. This reads
// the source: a second writer, a second meter call or a stage writing a reply fails it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = sources(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));

/** Where `pattern` occurs, as `file: count`. */
function occurrences(pattern: RegExp, except: (path: string) => boolean = () => false): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of files) {
    if (except(f.path)) continue;
    const n = [...f.text.matchAll(pattern)].length;
    if (n > 0) out[f.path] = n;
  }
  return out;
}

describe('one meter exit', () => {
  it('writes call records in one place: the meter exit', () => {
    // `<anything>.record(` on a meter, and any record call that names `calls`, outside the meter itself
    expect(occurrences(/\.record\(\s*\{[^;]*?\bcalls\s*:/gs, (p) => p.startsWith('meter/'))).toEqual({ 'pipeline/meter-call.ts': 1 });
    expect(occurrences(/\b(?:meter|#meter)\.record\(/g, (p) => p.startsWith('meter/'))).toEqual({ 'pipeline/meter-call.ts': 1 });
  });

  it('calls the meter exit from one place: the runner both pipelines run on', () => {
    expect(occurrences(/\bmeterOutcome\(/g, (p) => p === 'pipeline/meter-call.ts')).toEqual({ 'pipeline/run-call.ts': 1 });
    expect(occurrences(/\bmeterCall\(/g)).toEqual({ 'pipeline/meter-call.ts': 2 }); // its definition and its one caller
    expect(occurrences(/\brunCall\(/g, (p) => p === 'pipeline/run-call.ts')).toEqual({ 'pipeline/completions.ts': 2, 'pipeline/embeddings.ts': 1 });
  });

  it('keeps what is not a call record off the call-record writer', () => {
    const learning = occurrences(/\.recordLearning\(\s*\{[^;]*?\bcalls\s*:/gs);
    expect(learning).toEqual({});
    expect(Object.keys(occurrences(/\.recordLearning\(/g)).sort()).toEqual(['optimizer/evidence-rows.ts', 'optimizer/outcomes.ts', 'pipeline/meter-call.ts']);
  });

  it('has no stage write to a transport: the pipeline returns a Reply', () => {
    expect(occurrences(/\.(?:hijack|writeHead|flushHeaders)\(|\breply\.send\(|\.raw\b/g, (p) => !p.startsWith('pipeline/'))).toEqual({});
  });
});
