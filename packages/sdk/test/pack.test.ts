// Acceptance 1 of issue 19: the SDK as a newcomer gets it. `npm pack`, then a plain
// `npm install ./optimizer-sdk-*.tgz` into an empty folder with the machine's own Node 20
// npm; the README's Usage examples, put together as one script, type-check under
// `tsc --strict` against the installed declarations and run on Node 20 against a real
// gateway: a completion inside a run, an outcome, savings and a workflow's steps (over REST and
// through the typed tRPC client), and a 402 caught by its type on both. The installed package
// also loads through require and bundles for a browser.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeOnMockOpenAI, startRig, type Rig } from '../../../apps/api/test/support/vendor.ts';
import { codeBlocks } from './support/readme.ts';

const sdkDir = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const tscBin = require.resolve('typescript/bin/tsc');
const esbuild = require('esbuild') as typeof import('esbuild');
// The machine's Node 20 and its npm, not the project's pinned Node 24.
const NODE20 = '/usr/bin/node';
const NPM20 = '/usr/bin/npm';
const machineEnv: NodeJS.ProcessEnv = { ...process.env, PATH: '/usr/bin:/bin:/usr/local/bin', npm_config_loglevel: 'error' };
for (const k of Object.keys(machineEnv)) if (/^npm_(package|lifecycle|config_(user_agent|node_gyp|prefix|nodedir))/i.test(k)) delete machineEnv[k];

// Never a synchronous child: the gateway runs in this process, and vitest's worker must keep answering.
// A failure names what the command printed (tsc reports its errors on stdout).
const run = async (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = machineEnv): Promise<string> => {
  try {
    return (await promisify(execFile)(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 })).stdout;
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`${(err as Error).message}\n${stdout}${stderr}`, { cause: err });
  }
};

let rig: Rig;
let dir: string;
let tgz: string;

beforeAll(async () => {
  expect(await run(NODE20, ['--version'], sdkDir)).toMatch(/^v20\./);
  dir = mkdtempSync(join(tmpdir(), 'optimizer-sdk-pack-'));
  // npm pack runs the package's prepack (the build) and writes the tarball
  const out = await run(NPM20, ['pack', '--pack-destination', dir, '--json'], sdkDir, { ...machineEnv, PATH: `${join(sdkDir, 'node_modules/.bin')}:${machineEnv.PATH}` });
  // the prepack build prints first, with colour codes whose `[` is not the JSON's: the report is the array that opens a line
  const report = /^\[\s*\{[\s\S]*\]\s*$/m.exec(out);
  if (!report) throw new Error(`npm pack printed no JSON report:\n${out}`);
  const [packed] = JSON.parse(report[0]) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tgz = join(dir, packed!.filename);
  rig = await startRig();
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
  rig.vendor.script({ content: 'Billing', usage: { prompt_tokens: 200, completion_tokens: 5 } });
}, 240_000);
afterAll(async () => {
  await rig?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed SDK', () => {
  it('installs alone with npm into an empty folder, the README tour type-checks strictly and runs on Node 20 against a gateway', async () => {
    expect(readdirSync(dir)).toEqual([packed(tgz)]);
    await run(NPM20, ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${packed(tgz)}`], dir);
    const installed = JSON.parse(readFileSync(join(dir, 'node_modules/@optimizer/sdk/package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
    expect(installed.dependencies).toEqual({ zod: '4.1.12', '@trpc/client': '11.25.2', '@trpc/server': '11.25.2' });
    expect(existsSync(join(dir, 'node_modules/@optimizer/schema'))).toBe(false);

    const tour = codeBlocks(join(sdkDir, 'README.md'), 'Usage', 'ts')
      .join('\n')
      .replaceAll("'http://127.0.0.1:8080'", `'${rig.gw.url}'`)
      .replaceAll("'sk-opt-your-key'", `'${rig.tenant.api_key}'`);
    writeFileSync(join(dir, 'tour.mts'), tour);
    await run(NODE20, [tscBin, '--strict', '--noUncheckedIndexedAccess', '--module', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'false', 'tour.mts'], dir);
    const printed = await run(NODE20, ['tour.mjs'], dir);
    expect(printed).toContain('Billing');
    expect(printed).toMatch(/cost [\d.e-]+ USD, baseline [\d.e-]+ USD, saving -?[\d.e-]+ USD/);
    expect(printed).toMatch(/saved -?[\d.e-]+ USD over 1 calls/);
    expect(printed).toMatch(/triage: 1 calls, settled=(true|false)/);
    expect(printed).toContain('production needs a subscription (POST /v1/workflows/');
    // the same reads and the same 402 through the typed tRPC client
    expect(printed).toMatch(/tRPC: saved -?[\d.e-]+ USD over 1 calls/);
    expect(printed).toMatch(/tRPC: triage has 1 calls, chosen model /);
    expect(printed).toContain('tRPC: production needs a subscription (POST /trpc/workflow.moveTo)');
  }, 240_000);

  it('leaves the tour\'s call and its declared step on the gateway\'s record', async () => {
    const calls = await fetch(`${rig.gw.url}/v1/calls`, { headers: { authorization: `Bearer ${rig.tenant.api_key}` } });
    const [call] = ((await calls.json()) as { data: Array<{ id: string; model: string }> }).data;
    expect(call).toBeDefined();
    const steps = (await (await fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps`, { headers: { authorization: `Bearer ${rig.tenant.api_key}` } })).json()) as { data: Array<{ label: string; [k: string]: unknown }> };
    expect(steps.data.map((s) => s.label)).toEqual(['triage']);
  });

  it('loads through require on Node 20 and bundles for a browser without Node built-ins', async () => {
    const cjs = await run(NODE20, ['-e', "const s = require('@optimizer/sdk'); const t = require('@optimizer/sdk/trpc'); console.log(typeof s.OptimizerClient, typeof s.OptimizerError, typeof t.createTrpcClient)"], dir);
    expect(cjs.trim()).toBe('function function function');
    writeFileSync(
      join(dir, 'browser.mjs'),
      "import { OptimizerClient } from '@optimizer/sdk';\nimport { createTrpcClient } from '@optimizer/sdk/trpc';\nglobalThis.client = new OptimizerClient({ baseURL: location.origin, apiKey: 'sk-opt-x' });\nglobalThis.trpc = createTrpcClient({ baseURL: location.origin });\n",
    );
    const built = await esbuild.build({ entryPoints: [join(dir, 'browser.mjs')], bundle: true, platform: 'browser', format: 'esm', write: false, absWorkingDir: dir, logLevel: 'silent' });
    const code = built.outputFiles[0]!.text;
    expect(code).toContain('OptimizerClient');
    expect(code).toContain('createTRPCClient');
    expect(code).not.toMatch(/from ["']node:|require\(["']node:/);
  }, 60_000);
});

function packed(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
