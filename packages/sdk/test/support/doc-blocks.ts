// Every fenced code block of a Markdown file, with the marker comment that may sit on the line
// above it and says how the docs' tests treat it (docs-examples.test.ts):
//   <!-- not run: REASON -->          set-up, a long-running tool, an answer or a layout: counted, not run
//   <!-- run by FILE -->              another test runs it (the README quick start, the SDK tour)
//   <!-- run with NAMES[; throws CODE] -->  run with the names it uses but does not make (client,
//                                     workflow, messages), and expected to throw OptimizerError CODE
// A block without a marker is run as it stands.
import { readFileSync } from 'node:fs';

export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  code: string;
  /** The section heading (`## …` or `### …`) the block sits under. */
  section: string;
  marker: { kind: 'not run'; reason: string } | { kind: 'run by'; file: string } | { kind: 'run with'; names: string[]; throws: string | null } | null;
}

function markerOf(line: string | undefined): DocBlock['marker'] {
  const m = /^<!-- (.*) -->$/.exec(line ?? '');
  if (!m) return null;
  const text = m[1]!;
  if (text.startsWith('not run: ')) return { kind: 'not run', reason: text.slice('not run: '.length) };
  if (text.startsWith('run by ')) return { kind: 'run by', file: text.slice('run by '.length) };
  const w = /^run with ([\w, ]+?)(?:; throws (\w+))?$/.exec(text);
  if (w) return { kind: 'run with', names: w[1]!.split(',').map((s) => s.trim()), throws: w[2] ?? null };
  throw new Error(`an unknown example marker: ${line}`);
}

export function docBlocks(file: string): DocBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{2,3} /.test(line)) section = line.replace(/^#+ /, '');
    const open = /^```(\S*)/.exec(line);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
    blocks.push({ file, line: start + 1, lang: open[1] ?? '', code: `${body.join('\n')}\n`, section, marker: markerOf(lines[start - 1]) });
  }
  return blocks;
}
