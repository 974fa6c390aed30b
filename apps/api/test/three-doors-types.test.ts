// A client type-checks against the server: the official tRPC client with AppRouter and the
// web app's codegen'd GraphQL documents compile when the input is right, and a fixture with
// one wrong input each fails `tsc` on exactly that line. The fixtures have their own small
// tsconfig (test/fixtures/doors-types), out of the project's, since two must not compile.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dir = 'apps/api/test/fixtures/doors-types';
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

let status: number | null;
let diagnostics: { file: string; line: number; message: string }[];

/** Runs tsc without blocking the test worker (a blocked worker misses vitest's own calls on a busy machine). */
function compile(): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code, stdout }));
  });
}

beforeAll(async () => {
  const r = await compile();
  status = r.status;
  diagnostics = [...r.stdout.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+: .*)$/gm)].map((m) => ({ file: m[1]!.replaceAll('\\', '/'), line: Number(m[2]), message: m[3]! }));
}, 300_000);

/** The line of a fixture marked `// wrong input`. */
function markedLine(file: string): number {
  const lines = readFileSync(join(root, dir, file), 'utf8').split('\n');
  return lines.findIndex((l) => l.includes('// wrong input')) + 1;
}

describe('clients type-check against the server', () => {
  it('compiles a tRPC client call and a codegen\'d GraphQL document with the right inputs, outputs typed', () => {
    expect(diagnostics.filter((d) => d.file.endsWith('/good.ts') || d.file.endsWith('/client.ts'))).toEqual([]);
  });

  // each fixture holds one wrong input: tsc fails on exactly that line, for that reason
  const wrong: [file: string, door: string, message: RegExp][] = [
    ['wrong-trpc.ts', 'a tRPC input (calls)', /not assignable to type 'number'/],
    ['wrong-trpc-billing.ts', 'a tRPC input (top-up)', /not assignable to type 'number'/],
    ['wrong-trpc-capture.ts', 'a tRPC input (capture settings)', /"everything"' is not assignable to type '(NonNullable<)?"none" \| "metadata" \| "full"/],
    ['wrong-gql.ts', "a GraphQL document's variable (workflow detail)", /not assignable to type 'string'/],
    ['wrong-gql-recordings.ts', "a GraphQL document's variable (recordings)", /not assignable to type 'number'/],
  ];

  for (const [file, door, message] of wrong) {
    it(`fails tsc on ${door} of the wrong type, on that line only`, () => {
      const errs = diagnostics.filter((d) => d.file.endsWith(`/${file}`));
      expect(errs.map((d) => d.line)).toEqual([markedLine(file)]);
      expect(errs[0]!.message).toMatch(message);
    });
  }

  it('fails the compile as a whole, with no error beyond the marked lines', () => {
    expect(status).not.toBe(0);
    expect(diagnostics).toHaveLength(wrong.length);
  });
});
