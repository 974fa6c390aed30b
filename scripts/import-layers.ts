#!/usr/bin/env node
// Lint: the gateway's rooms stand in layers (apps/api/layers.json), and an import runs only down:
// from a room to a room of a lower layer, never to another room of its own layer nor to a higher
// one, so no two rooms import each other however far apart. Every room must be placed. Imports
// still being removed are listed as pending; that list may only shrink. Run by `npm run lint` and
// `npm test`; exits 1 naming each import that runs back up. Tests beside the code are left out.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importGraph } from './import-cycles.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(root, 'apps/api/src');

export interface Layers {
  layers: string[][];
  pending: { imports: string[] };
}

/** The room a source file stands in: its first folder under the source root (`pipeline/`), or the file itself at the top (`services.ts`). */
export function roomOf(file: string, src = SRC): string {
  const parts = relative(src, file).split('/');
  return parts.length > 1 ? `${parts[0]}/` : parts[0]!;
}

/** What is wrong with `graph` against `layers`: unplaced rooms, imports running back up, pending entries no longer found. */
export function layerFindings(graph: Map<string, string[]>, layers: Layers, src = SRC): string[] {
  const rank = new Map<string, number>();
  layers.layers.forEach((rooms, i) => rooms.forEach((r) => rank.set(r, i)));
  const findings = new Set<string>();
  const pending = new Set(layers.pending.imports);
  const seen = new Set<string>();
  for (const [from, targets] of graph) {
    const a = roomOf(from, src);
    if (!rank.has(a)) findings.add(`room ${a} has no layer in apps/api/layers.json`);
    for (const to of targets) {
      const b = roomOf(to, src);
      if (a === b || !rank.has(a) || !rank.has(b)) continue;
      if (rank.get(b)! < rank.get(a)!) continue;
      const edge = `${relative(src, from)} -> ${relative(src, to)}`;
      if (pending.has(edge)) {
        seen.add(edge);
        continue;
      }
      findings.add(`${edge}: ${a} (layer ${rank.get(a)}) imports ${b} (layer ${rank.get(b)})${rank.get(a) === rank.get(b) ? ', a room of its own layer' : ', a higher room'}`);
    }
  }
  for (const edge of pending) if (!seen.has(edge)) findings.add(`pending import ${edge} no longer runs back up: take it off apps/api/layers.json`);
  return [...findings].sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const layers = JSON.parse(readFileSync(join(root, 'apps/api/layers.json'), 'utf8')) as Layers;
  // tests beside the code are clients of it, free to reach any room; migrations are history
  const graph = new Map([...importGraph(['apps/api/src'])].filter(([f]) => !f.includes('/db/migrations/') && !f.endsWith('.test.ts')));
  const findings = layerFindings(graph, layers);
  for (const f of findings) console.error(`layers: ${f}`);
  if (findings.length) process.exit(1);
  console.log(`layers: every import runs down (${layers.pending.imports.length} pending)`);
}
