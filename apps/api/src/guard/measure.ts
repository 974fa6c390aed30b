// Precision and recall of the PII detectors per kind on a labelled set (JSON lines of
// `{text, pii: [{kind, value}]}`). A detection counts as right when its kind and exact
// value are labelled in that example. Run:
//   node apps/api/src/guard/measure.ts apps/api/test/fixtures/pii/held-out.jsonl   (or npm run bench:guard)
import { readFileSync } from 'node:fs';
import { piiKinds, type PiiKind } from '@optimizer/schema';
import { detect } from './detectors.ts';

export interface KindScore {
  kind: PiiKind;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
}

/** Each example's false positives (`+ kind:value`) and misses (`- kind:value`), for reading a tuning set. */
export function mistakes(lines: string): { text: string; wrong: string[] }[] {
  const out: { text: string; wrong: string[] }[] = [];
  for (const line of lines.split('\n')) {
    if (!line.trim()) continue;
    const ex = JSON.parse(line) as { text: string; pii: { kind: PiiKind; value: string }[] };
    const found = detect(ex.text, piiKinds).map((s) => `${s.kind}:${ex.text.slice(s.start, s.end)}`);
    const want = ex.pii.map((p) => `${p.kind}:${p.value}`);
    const wrong = [...found.filter((f) => !want.includes(f)).map((f) => `+ ${f}`), ...want.filter((w) => !found.includes(w)).map((w) => `- ${w}`)];
    if (wrong.length) out.push({ text: ex.text, wrong });
  }
  return out;
}

export function measure(lines: string): KindScore[] {
  const counts = new Map(piiKinds.map((k) => [k, { tp: 0, fp: 0, fn: 0 }]));
  for (const line of lines.split('\n')) {
    if (!line.trim()) continue;
    const ex = JSON.parse(line) as { text: string; pii: { kind: PiiKind; value: string }[] };
    const found = detect(ex.text, piiKinds).map((s) => ({ kind: s.kind, value: ex.text.slice(s.start, s.end) }));
    const left = [...ex.pii];
    for (const f of found) {
      const i = left.findIndex((l) => l.kind === f.kind && l.value === f.value);
      if (i === -1) counts.get(f.kind)!.fp++;
      else {
        counts.get(f.kind)!.tp++;
        left.splice(i, 1);
      }
    }
    for (const l of left) counts.get(l.kind)!.fn++;
  }
  return [...counts].map(([kind, c]) => ({ kind, ...c, precision: c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp), recall: c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn) }));
}

if (import.meta.main) {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error('usage: node apps/api/src/guard/measure.ts <labelled.jsonl>...');
  for (const s of measure(files.map((f) => readFileSync(f, 'utf8')).join('\n'))) {
    console.log(`${s.kind.padEnd(12)} precision ${s.precision.toFixed(3)}  recall ${s.recall.toFixed(3)}  (tp ${s.tp}, fp ${s.fp}, fn ${s.fn})`);
  }
}
