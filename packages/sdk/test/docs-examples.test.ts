// Every example in the README, docs/*.md and the SDK's README runs: each fenced block is run
// here against a gateway with a loopback OpenAI mock (shell blocks with bash and curl, TypeScript
// blocks as modules importing the real openai, ai, @ai-sdk/openai, LangChain and @optimizer/sdk
// packages, JSON annotations sent on a completion), or is marked as run by another test (the
// quick start, the SDK tour, the demo), or is marked as not run with its reason (set-up, a
// benchmark, an answer, a layout). Every block is one of the three, and the counts per file are
// pinned, so a new example is run or says why not. The docs' own claims about statuses are
// checked against the same gateway. Markers: test/support/doc-blocks.ts.
import { spawn } from 'node:child_process';
import { existsSync, globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeOnMockOpenAI, startRig, type Rig } from '../../../apps/api/test/support/vendor.ts';
import { authed } from '../../../apps/api/test/support/gateway.ts';
import { isOptimizerError } from '../src/index.ts';
import { docBlocks, type DocBlock } from './support/doc-blocks.ts';

const root = join(import.meta.dirname, '..', '..', '..');
const files = ['README.md', ...globSync('docs/*.md', { cwd: root }).sort(), 'packages/sdk/README.md'];
const blocks = files.flatMap((f) => docBlocks(join(root, f)));
// TypeScript blocks run as modules beside the SDK's tests, so they import the packages it is tested with
const scratch = join(import.meta.dirname, `.docs-run-${process.pid}`);

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
  mkdirSync(scratch, { recursive: true });
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await rig?.close();
});

const where = (b: DocBlock) => `${relative(root, b.file)}:${b.line}`;

/** The docs' gateway and key, made this test's. */
function localize(code: string): string {
  const host = new URL(rig.gw.url).host;
  return code
    .replace(/(?:https?:\/\/)?(?:localhost|127\.0\.0\.1):8080/g, (m) => (m.startsWith('http') ? rig.gw.url : host))
    .replace(/sk-opt-(?:…|\.\.\.|your-key)/g, rig.tenant.api_key);
}

function runShell(b: DocBlock): Promise<string> {
  // an HTTP error fails the block as a failed command would
  const script = `set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n${localize(b.code)}`;
  const child = spawn('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', KEY: rig.tenant.api_key } });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${where(b)} exited ${code}:\n${out}`)))));
}

/** What a block that runs "with" a name gets for it. */
const PRELUDE: Record<string, string> = {
  client: "import { OptimizerClient as DocsClient } from '@optimizer/sdk';\nconst client = new DocsClient({ baseURL: 'http://127.0.0.1:8080', apiKey: 'sk-opt-…' });",
  workflow: "const [workflow] = await client.workflows.list();\nif (!workflow) throw new Error('no workflow');",
  messages: "const messages = [{ role: 'user' as const, content: 'Plan a trip to Oslo' }];",
};

let modules = 0;
async function runModule(b: DocBlock): Promise<void> {
  const names = b.marker?.kind === 'run with' ? b.marker.names : [];
  const prelude = names.map((n) => PRELUDE[n] ?? `(no prelude for ${n})`).join('\n');
  const file = join(scratch, `${basename(b.file, '.md')}-${b.line}-${modules++}.ts`);
  writeFileSync(file, `${localize(prelude)}\n${localize(b.code)}\nexport {};\n`);
  await import(file);
}

/** A JSON block: a completion request as it stands, else annotations (one per line when the block holds several) sent on one. */
async function runJson(b: DocBlock): Promise<void> {
  let bodies: unknown[];
  try {
    bodies = [JSON.parse(b.code)];
  } catch {
    bodies = b.code.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown);
  }
  for (const body of bodies as Record<string, unknown>[]) {
    const request = 'messages' in body ? body : { model: 'auto', messages: [{ role: 'user', content: 'Classify: "I was charged twice"' }], optimizer: body };
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify(request) });
    expect(r.status, `${where(b)}: ${await r.clone().text()}`).toBe(200);
    expect(((await r.json()) as { optimizer?: unknown }).optimizer, where(b)).toBeDefined();
  }
}

async function run(b: DocBlock): Promise<void> {
  if (b.lang === 'sh' || b.lang === 'bash') {
    await runShell(b);
    return;
  }
  if (b.lang === 'ts' || b.lang === 'js') return runModule(b);
  if (b.lang === 'json') return runJson(b);
  throw new Error(`${where(b)}: no runner for \`\`\`${b.lang} (mark it "not run: why")`);
}

describe('the docs’ examples', () => {
  const runnable = blocks.filter((b) => b.marker === null || b.marker.kind === 'run with');

  for (const b of runnable) {
    it(`${where(b)} (${b.lang}, ${b.section}) runs against a gateway`, { timeout: 60_000 }, async () => {
      const throws = b.marker?.kind === 'run with' ? b.marker.throws : null;
      const outcome = await run(b).then(
        () => null,
        (e: unknown) => e,
      );
      if (throws) expect(isOptimizerError(outcome) ? outcome.code : outcome, where(b)).toBe(throws);
      else expect(outcome, `${where(b)}: ${(outcome as Error | null)?.stack ?? ''}`).toBeNull();
    });
  }

  it('marks every other block: run by a test that reads this file, or not run with a reason', () => {
    for (const b of blocks) {
      if (b.marker?.kind === 'run by') {
        const test = join(root, b.marker.file);
        expect(existsSync(test), `${where(b)}: ${b.marker.file}`).toBe(true);
        expect(readFileSync(test, 'utf8'), `${where(b)}: ${b.marker.file} does not read ${basename(b.file)}`).toContain(basename(b.file));
      }
      if (b.marker?.kind === 'not run') expect(b.marker.reason.length, where(b)).toBeGreaterThan(10);
    }
  });

  it('counts them: per file, the blocks run here, run by another test, and not run', () => {
    const counts: Record<string, { here: number; elsewhere: number; notRun: number }> = {};
    for (const b of blocks) {
      const c = (counts[relative(root, b.file)] ??= { here: 0, elsewhere: 0, notRun: 0 });
      if (b.marker?.kind === 'not run') c.notRun++;
      else if (b.marker?.kind === 'run by') c.elsewhere++;
      else c.here++;
    }
    expect(counts).toEqual({
      'README.md': { here: 1, elsewhere: 4, notRun: 3 },
      'docs/annotation.md': { here: 6, elsewhere: 0, notRun: 1 },
      'docs/recipes.md': { here: 6, elsewhere: 0, notRun: 0 },
      'docs/routing-settings.md': { here: 2, elsewhere: 0, notRun: 0 },
      'packages/sdk/README.md': { here: 6, elsewhere: 6, notRun: 1 },
    });
  });
});

describe('the docs’ claims', () => {
  it('docs/annotation.md: an unknown key or a wrong type in the annotation is the status and code it names, naming the field', async () => {
    const text = readFileSync(join(root, 'docs', 'annotation.md'), 'utf8');
    const claimed = /an unknown key or a wrong\s+type is a (\d{3}) `(\w+)` naming the field/.exec(text);
    expect(claimed, 'docs/annotation.md names the status').not.toBeNull();
    for (const [optimizer, field] of [
      [{ step: { id: 'triage', colour: 'red' } }, 'colour'],
      [{ run: { id: 'r', seq: 'first' } }, 'seq'],
    ] as const) {
      const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'hi' }], optimizer }) });
      const body = (await r.json()) as { error: { code: string; param: string } };
      expect([r.status, body.error.code], JSON.stringify(body)).toEqual([Number(claimed![1]), claimed![2]]);
      expect(body.error.param).toContain(field);
    }
  });

  it('docs/routing-settings.md: an unknown key other than a tier is refused with the status it names, and nothing is stored', async () => {
    const text = readFileSync(join(root, 'docs', 'routing-settings.md'), 'utf8');
    const claimed = /Every\s+other unknown key is refused with a (\d{3})/.exec(text);
    expect(claimed, 'docs/routing-settings.md names the status').not.toBeNull();
    const r = await fetch(`${rig.gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify({ quality_floor: 0.9, qualty_floor: 0.5 }) });
    expect(r.status, await r.clone().text()).toBe(Number(claimed![1]));
    const stored = (await (await fetch(`${rig.gw.url}/v1/settings/routing`, { headers: authed(rig.tenant.api_key) })).json()) as { quality_floor: number };
    expect(stored.quality_floor).not.toBe(0.9);
  });

  it('README.md: GraphQL answers a tenant’s key (its own fields) as well as the admin key', async () => {
    const text = readFileSync(join(root, 'README.md'), 'utf8');
    expect(text).not.toMatch(/GraphQL at `\/graphql` \(admin bearer\)/);
    const ask = (key: string, query: string) => fetch(`${rig.gw.url}/graphql`, { method: 'POST', headers: authed(key), body: JSON.stringify({ query }) }).then((r) => r.json() as Promise<{ data?: Record<string, unknown>; errors?: unknown[] }>);
    const tenant = await ask(rig.tenant.api_key, '{ savings { calls } }');
    expect(tenant.errors).toBeUndefined();
    expect(tenant.data!.savings).toHaveProperty('calls');
    const admin = await ask(rig.gw.adminKey, '{ providers { name } }');
    expect(admin.errors).toBeUndefined();
  });
});
