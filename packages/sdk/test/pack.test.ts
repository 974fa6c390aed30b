// Acceptance 1 of issues 19 and 33: the SDK as a newcomer gets it. `npm pack`, then one plain
// `npm install` (strict peers, no --legacy-peer-deps) of the tarball into an empty folder beside
// the current majors of openai, ai, @ai-sdk/openai, @langchain/core and @langchain/openai
// (their `latest`, from the registry through npm's cache), with the machine's own Node 20 npm;
// the README's Usage examples, put together as one script, type-check under `tsc --strict`
// against the installed declarations and run on Node 20 against a real gateway: a completion
// inside a run, an outcome, savings and a workflow's steps (over REST and through the typed
// tRPC client), and a 402 caught by its type on both. The examples the package ships
// (`examples/*.mjs`) run on Node 20 against the same gateway and its loopback mock vendor.
// The installed package also loads through require and bundles for a browser.
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
/** The clients a team already has, at their current major: installed beside the tarball. */
const BESIDE = ['openai', 'ai', '@ai-sdk/openai', '@langchain/core', '@langchain/openai'];
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
  it('installs with plain npm into an empty folder beside the current majors of the clients it helps, the README tour type-checks strictly and runs on Node 20 against a gateway', async () => {
    expect(readdirSync(dir)).toEqual([packed(tgz)]);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'newcomer', private: true, type: 'module' }));
    await run(NPM20, ['install', '--prefer-offline', '--strict-peer-deps', '--no-audit', '--no-fund', `./${packed(tgz)}`, ...BESIDE.map((p) => `${p}@latest`)], dir);
    const installed = JSON.parse(readFileSync(join(dir, 'node_modules/@optimizer/sdk/package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; peerDependencies: Record<string, string> };
    expect(installed.dependencies).toEqual({ zod: '4.1.12', '@trpc/client': '11.25.2', '@trpc/server': '11.25.2' });
    expect(existsSync(join(dir, 'node_modules/@optimizer/schema'))).toBe(false);
    // each client is there at the major its peer range names last (the newest the SDK was tested with)
    const own = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(own.dependencies).sort()).toEqual(['@optimizer/sdk', ...BESIDE].sort());
    for (const name of BESIDE.filter((p) => p !== 'openai')) {
      const { version } = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
      expect(installed.peerDependencies[name], name).toMatch(new RegExp(`\\^${version.split('.')[0]}\\.0\\.0$`));
    }

    const tour = codeBlocks(join(sdkDir, 'README.md'), 'Usage', 'ts')
      .join('\n')
      .replaceAll("'http://127.0.0.1:8080'", `'${rig.gw.url}'`)
      .replaceAll("'sk-opt-your-key'", `'${rig.tenant.api_key}'`);
    writeFileSync(join(dir, 'tour.mts'), tour);
    await run(NODE20, [tscBin, '--strict', '--noUncheckedIndexedAccess', '--module', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'false', 'tour.mts'], dir);
    const printed = await run(NODE20, ['tour.mjs'], dir);
    expect(printed).toContain('Billing');
    expect(printed).toMatch(/cost [\d.e-]+ USD, baseline [\d.e-]+ USD, saving -?[\d.e-]+ USD/);
    expect(printed).toMatch(/^call \S+ served by [\w.-]+$/m);
    expect(printed).toContain('outcome matched 1 call(s)');
    expect(printed).toMatch(/saved -?[\d.e-]+ USD over 1 calls/);
    expect(printed).toMatch(/triage: 1 calls, settled=(true|false)/);
    expect(printed).toContain('production needs a subscription (POST /v1/workflows/');
    // the same reads and the same 402 through the typed tRPC client
    expect(printed).toMatch(/tRPC: saved -?[\d.e-]+ USD over 1 calls/);
    expect(printed).toMatch(/tRPC: triage has 1 calls, chosen model /);
    // a model's name, not the policy key it is served under
    expect(printed).not.toMatch(/chosen model \w+:/);
    expect(printed).toContain('tRPC: production needs a subscription (POST /trpc/workflow.moveTo)');
  }, 240_000);

  it('leaves the tour\'s call and its declared step on the gateway\'s record', async () => {
    const calls = await fetch(`${rig.gw.url}/v1/calls`, { headers: { authorization: `Bearer ${rig.tenant.api_key}` } });
    const [call] = ((await calls.json()) as { data: Array<{ id: string; model: string }> }).data;
    expect(call).toBeDefined();
    const steps = (await (await fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps`, { headers: { authorization: `Bearer ${rig.tenant.api_key}` } })).json()) as { data: Array<{ label: string; [k: string]: unknown }> };
    expect(steps.data.map((s) => s.label)).toEqual(['triage']);
  });

  it('runs the examples it ships on Node 20 against the gateway: the tour, the AI SDK helper and the LangChain helper, streams included', async () => {
    const env = { ...machineEnv, OPTIMIZER_URL: rig.gw.url, OPTIMIZER_API_KEY: rig.tenant.api_key };
    const examples = join(dir, 'node_modules/@optimizer/sdk/examples');
    expect(readdirSync(examples).sort()).toEqual(['ai-sdk.mjs', 'langchain.mjs', 'tour.mjs']);
    // one after another: the tour counts its step's calls
    const printed: Record<string, string> = {};
    for (const name of ['tour', 'ai-sdk', 'langchain']) printed[name] = await run(NODE20, [join(examples, `${name}.mjs`)], dir, env);
    const served = (what: string) => new RegExp(`^${what}: Billing \\(call \\S+, [\\w.-]+, cost [\\d.e-]+ USD, saving -?[\\d.e-]+ USD\\)$`, 'm');

    const tour = printed.tour!;
    const callId = /^call (\S+) served by ([\w.-]+)$/m.exec(tour)?.[1];
    expect(callId).toBeDefined();
    // the outcome answers with the calls it was matched to: the tour's own call
    expect(tour).toContain(`outcome scored 1, matched 1 call(s): ${callId}`);
    expect(tour).toMatch(/^why: \S/m);
    expect(tour).toMatch(/tRPC: triage has 2 calls, chosen model (not yet|[\w.-]+)$/m);
    expect(tour).not.toMatch(/chosen model \w+:/);

    for (const what of ['generateText', 'streamText']) expect(printed['ai-sdk']).toMatch(served(what));
    for (const what of ['invoke', 'chain', 'stream']) expect(printed.langchain).toMatch(served(what));
    // every call id the helpers printed names a metered call
    const ids = [...`${printed['ai-sdk']}${printed.langchain}`.matchAll(/\(call (\S+),/g)].map((m) => m[1]!);
    expect(ids).toHaveLength(5);
    for (const id of ids) expect((await fetch(`${rig.gw.url}/v1/calls/${id}`, { headers: { authorization: `Bearer ${rig.tenant.api_key}` } })).status).toBe(200);
  }, 120_000);

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
