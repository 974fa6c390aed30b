// Precision and recall of the guard's PII detectors per kind on the labelled set
// (apps/api/test/fixtures/pii/): the held-out part first, the figures to report; then the
// tuning part. `--by-source` splits each part into generated and hand-written cases;
// `--misses` lists the tuning part's false positives and misses (never the held-out part's:
// reading those would make it a tuning set).
//   npm run bench:guard [-- --by-source] [-- --misses]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measure, mistakes, type KindScore } from '../../apps/api/src/guard/measure.ts';

const dir = join(import.meta.dirname, '..', '..', 'apps', 'api', 'test', 'fixtures', 'pii');
const args = new Set(process.argv.slice(2));
const read = (part: string) => readFileSync(join(dir, `${part}.jsonl`), 'utf8');
const onlySource = (lines: string, source: string) =>
  lines
    .split('\n')
    .filter((l) => l.trim() && (JSON.parse(l) as { source?: string }).source === source)
    .join('\n');

function table(title: string, lines: string): void {
  const n = lines.split('\n').filter((l) => l.trim()).length;
  console.log(`\n${title} (${n} cases)`);
  console.log('kind         precision  recall    tp   fp   fn');
  const rows: KindScore[] = measure(lines);
  for (const s of rows) console.log(`${s.kind.padEnd(12)} ${s.precision.toFixed(3).padStart(9)}  ${s.recall.toFixed(3).padStart(6)}  ${String(s.tp).padStart(4)} ${String(s.fp).padStart(4)} ${String(s.fn).padStart(4)}`);
}

for (const part of ['held-out', 'tune']) {
  const lines = read(part);
  table(part, lines);
  if (args.has('--by-source')) for (const source of ['generated', 'hand-written']) table(`${part}, ${source}`, onlySource(lines, source));
}

if (args.has('--misses')) {
  console.log('\ntuning part: false positives (+) and misses (-)');
  for (const m of mistakes(read('tune'))) console.log(`${m.wrong.join('  ')}    | ${m.text.replace(/\n/g, '⏎').slice(0, 140)}`);
}
