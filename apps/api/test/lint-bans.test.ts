import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

/** Lints code as if it were a gateway source file (a real file, so type-aware rules run). */
async function messagesFor(code: string, under = 'apps/api/src/lint-probe'): Promise<string[]> {
  const dir = join(root, under);
  const file = join(dir, `${randomUUID()}.ts`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, code);
  try {
    const [result] = await new ESLint({ cwd: root }).lintFiles([file]);
    return result!.messages.map((m) => m.message);
  } finally {
    rmSync(file, { force: true });
  }
}

describe('lint bans in the gateway, each with its reason', () => {
  it('bans bare fetch for outbound calls', async () => {
    expect((await messagesFor('export const f = () => fetch("http://x");\n')).join()).toContain('outbound module');
  });
  it("bans branching on an error's message text", async () => {
    expect((await messagesFor("export const reset = (err: Error) => err.message.includes('ECONNRESET');\n")).join()).toContain('err.code');
  });
  it('bans Math.random for ids and secrets', async () => {
    expect((await messagesFor('export const id = Math.random().toString(36);\n')).join()).toContain('node:crypto');
  });
  it('bans === on secrets', async () => {
    expect((await messagesFor('export const ok = (apiKey: string, storedKey: string) => apiKey === storedKey;\n')).join()).toContain('constantTimeEqual');
  });
  it('bans floating promises', async () => {
    expect((await messagesFor('async function go(): Promise<void> {}\nexport function run(): void { go(); }\n')).join()).toMatch(/Promises must be awaited/);
  });
  it('bans importing undici outside the outbound module', async () => {
    expect((await messagesFor("import { request } from 'undici';\nexport { request };\n")).join()).toContain('outbound');
  });
}, 60_000);

describe('layers, enforced by lint', () => {
  it.each([
    ['apps/api/src/providers/lint-probe', "import type { CallContext } from '../../pipeline/context.ts';\nexport type C = CallContext;\n"],
    ['apps/api/src/optimizer/lint-probe', "import type { Services } from '../../services.ts';\nexport type S = Services;\n"],
    ['apps/api/src/cache/lint-probe', "import { parseWith } from '../../http/validate.ts';\nexport { parseWith };\n"],
    ['apps/api/src/pipeline/lint-probe', "import type { FastifyReply } from 'fastify';\nexport type R = FastifyReply;\n"],
  ])('refuses an import across the layers from %s', async (under, code) => {
    expect((await messagesFor(code, under)).join()).toContain('Layering');
  });

  it('lets those layers import the wire leaf, and keeps the leaf a leaf', async () => {
    expect(await messagesFor("import type { Usage } from '../../wire/usage.ts';\nexport type U = Usage;\n", 'apps/api/src/providers/lint-probe')).toEqual([]);
    expect((await messagesFor("import type { Services } from '../../services.ts';\nexport type S = Services;\n", 'apps/api/src/wire/lint-probe')).join()).toMatch(/Layering|leaf/);
  });

  it('finds no violation in the gateway as it is', async () => {
    const results = await new ESLint({ cwd: root }).lintFiles(['apps/api/src/providers', 'apps/api/src/optimizer', 'apps/api/src/cache', 'apps/api/src/wire', 'apps/api/src/pipeline']);
    const layering = results.flatMap((r) => r.messages.filter((m) => /Layering|leaf/.test(m.message)).map((m) => `${r.filePath}: ${m.message}`));
    expect(layering).toEqual([]);
  });
}, 120_000);
