#!/usr/bin/env node
// Lint: no import circle in the source trees (type-only imports included: a circle of types
// still ties the files' layers together). Run by `npm run lint` and `npm test`; exits 1 naming
// each circle. Migrations are left out: the list of migrations imports each one by design.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TREES = ['apps/api/src', 'apps/admin-web/src', 'packages/sdk/src', 'packages/schema/src', 'packages/mock-providers/src'];
const SKIP = [/\/db\/migrations\//, /\/gql\//, /\.d\.ts$/];
const SOURCE = /\.(ts|tsx|mts)$/;
/** `import … from '…'`, `export … from '…'`, `import '…'`, `import('…')`: the relative ones. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (SOURCE.test(name) && !SKIP.some((r) => r.test(p))) out.push(p);
  }
  return out;
}

/** Drops comments, so an import named in a comment draws no edge. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

export function importGraph(trees = TREES): Map<string, string[]> {
  const all = trees.flatMap((t) => files(join(root, t)));
  const known = new Set(all);
  const graph = new Map<string, string[]>();
  for (const f of all) {
    const edges: string[] = [];
    for (const m of code(readFileSync(f, 'utf8')).matchAll(SPECIFIER)) {
      const target = resolve(dirname(f), m[1]!);
      if (known.has(target)) edges.push(target);
    }
    graph.set(f, edges);
  }
  return graph;
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = circles(importGraph());
  for (const c of found) console.error(`import circle: ${c.map((f) => relative(root, f)).join(' -> ')}`);
  if (found.length > 0) {
    console.error(`${found.length} import circle(s): move the shared type or constant to a file both can import (docs/decisions.md, "Layers")`);
    process.exit(1);
  }
  console.log('import circles: none');
}
