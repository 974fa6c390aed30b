import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

/** Lints code as if it were a gateway source file (a real file, so type-aware rules run). */
async function messagesFor(code: string): Promise<string[]> {
  const dir = join(root, 'apps/api/src/lint-probe');
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
