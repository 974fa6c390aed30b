// The bulk catalog importer (scripts/import-catalog) run as a real CLI against a real
// gateway: create, idempotent re-run, dry run, apply, invalid files, usage errors.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelProfile } from '@optimizer/schema';
import { parseCsv, toCsv } from '../../../scripts/import-catalog/csv.ts';
import { parseCsvCatalog, parseJsonCatalog, validateRows } from '../../../scripts/import-catalog/parse.ts';
import { planSteps } from '../../../scripts/import-catalog/apply.ts';
import { diffCatalog } from '../../../scripts/import-catalog/diff.ts';
import { startGateway, type TestGateway } from './support/gateway.ts';

const dir = join(import.meta.dirname, '../../../scripts/import-catalog');
const cli = join(dir, 'cli.ts');
const jsonFixture = join(dir, 'fixtures/catalog-50.json');
const csvFixture = join(dir, 'fixtures/catalog-50.csv');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as a child process; asynchronously, since the gateway answers from this process. */
function runCli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function summary(stdout: string): { created: number; updated: number; unchanged: number; disabled: number } {
  const m = /(\d+) created, (\d+) updated, (\d+) unchanged, (\d+) disabled/.exec(stdout);
  if (!m) throw new Error(`no summary line in:\n${stdout}`);
  return { created: Number(m[1]), updated: Number(m[2]), unchanged: Number(m[3]), disabled: Number(m[4]) };
}

const fixtureProfiles = (): ModelProfile[] => JSON.parse(readFileSync(jsonFixture, 'utf8')) as ModelProfile[];

describe('the bulk catalog importer against a running gateway', () => {
  let gw: TestGateway;
  let tmp: string;
  const env = () => ({ ADMIN_KEY: gw.adminKey });
  const run = (file: string, ...flags: string[]) => runCli([file, '--url', gw.url, ...flags], env());

  async function live(): Promise<Map<string, ModelProfile>> {
    const r = await fetch(`${gw.url}/v1/admin/catalog`, { headers: { authorization: `Bearer ${gw.adminKey}` } });
    expect(r.status).toBe(200);
    const { data } = (await r.json()) as { data: ModelProfile[] };
    return new Map(data.map((p) => [p.model, p]));
  }

  beforeAll(async () => {
    gw = await startGateway();
    tmp = mkdtempSync(join(tmpdir(), 'import-catalog-'));
  });
  afterAll(async () => {
    await gw?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('creates all 50 models of the JSON fixture, failover cycles included', async () => {
    const r = await run(jsonFixture);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(summary(r.stdout)).toEqual({ created: 50, updated: 0, unchanged: 0, disabled: 0 });
    expect(r.stdout).toMatch(/~ link {4}\S+: failover \[/); // the fixture's failover cycles are linked last
    const catalog = await live();
    for (const p of fixtureProfiles()) expect(catalog.get(p.model), p.model).toEqual(p);
  }, 60_000);

  it('reports nothing to change when the same file is imported again', async () => {
    const r = await run(jsonFixture);
    expect(r.code).toBe(0);
    expect(summary(r.stdout)).toEqual({ created: 0, updated: 0, unchanged: 50, disabled: 0 });
  }, 60_000);

  it('finds the CSV fixture identical to the JSON one', async () => {
    const r = await run(csvFixture, '--dry-run');
    expect(r.code).toBe(0);
    expect(summary(r.stdout)).toEqual({ created: 0, updated: 0, unchanged: 50, disabled: 0 });
  }, 60_000);

  it('plans a one-price change from a CSV in a dry run and changes nothing, then applies it', async () => {
    const records = parseCsv(readFileSync(csvFixture, 'utf8')).map((r) => [...r.fields]);
    const header = records[0]!;
    const priceCol = header.indexOf('output_per_mtok');
    const row = records.find((f) => f[0] === 'ft:gpt-4o-mini-2024-07-18:acme-corp::A1b2C3d4')!;
    expect(row[priceCol]).toBe('1.2');
    row[priceCol] = '1.35';
    const modified = join(tmp, 'modified.csv');
    writeFileSync(modified, toCsv(records));

    const before = await live();
    const dry = await run(modified, '--dry-run');
    expect(dry.code).toBe(0);
    expect(summary(dry.stdout)).toEqual({ created: 0, updated: 1, unchanged: 49, disabled: 0 });
    expect(dry.stdout).toContain('update  ft:gpt-4o-mini-2024-07-18:acme-corp::A1b2C3d4: output_per_mtok 1.2 → 1.35');
    expect(await live()).toEqual(before);

    const applied = await run(modified);
    expect(applied.code).toBe(0);
    expect(summary(applied.stdout)).toEqual({ created: 0, updated: 1, unchanged: 49, disabled: 0 });
    const after = await live();
    expect(after.get('ft:gpt-4o-mini-2024-07-18:acme-corp::A1b2C3d4')!.output_per_mtok).toBe(1.35);
    expect(after.get('ft:gpt-4o-mini-2024-07-18:acme-corp::A1b2C3d4')!.input_per_mtok).toBe(0.3);
  }, 60_000);

  it('rejects an invalid JSON file, naming each bad row and field, and applies nothing', async () => {
    const [a, b, c] = fixtureProfiles();
    const rows = [
      { ...a!, model: 'brand-new-model' }, // valid on its own, but must not be applied
      { ...b!, input_per_mtok: -1 },
      { ...c!, tools: 'sometimes', colour: 'blue' },
      { ...a!, model: 'another-new-model', failover: ['no-such-model'] },
    ];
    const file = join(tmp, 'invalid.json');
    writeFileSync(file, JSON.stringify({ models: rows }));
    const before = await live();
    const r = await run(file);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('3 of 4 rows are invalid; nothing was applied');
    expect(r.stderr).toMatch(/row 2 \(model "gpt-4o-2024-11-20"\): field input_per_mtok: /);
    expect(r.stderr).toMatch(/row 3 \(model "gpt-4o-mini-2024-07-18"\): field tools: /);
    expect(r.stderr).toMatch(/row 3 .*field colour: is not a profile field/);
    expect(r.stderr).toMatch(/row 4 \(model "another-new-model"\): field failover\.0: "no-such-model" is neither in the file nor in the live catalog/);
    expect(r.stderr).not.toMatch(/row 1\b/);
    expect(await live()).toEqual(before);
  }, 60_000);

  it('rejects an invalid CSV file with the row, line and field of each bad cell', async () => {
    const text = readFileSync(csvFixture, 'utf8').split('\n');
    text[1] = text[1]!.replace(',2.5,10,', ',cheap,10,');
    text[5] = text[5]!.replace(',basic,false,', ',basic,maybe,');
    const file = join(tmp, 'invalid.csv');
    writeFileSync(file, text.join('\n'));
    const before = await live();
    const r = await run(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/row 1 \(line 2, model "gpt-4o-2024-08-06"\): field input_per_mtok: expected a number, got "cheap"/);
    expect(r.stderr).toMatch(/row 5 \(line 6, model "gpt-3.5-turbo-0125"\): field structured_outputs: expected true or false, got "maybe"/);
    expect(await live()).toEqual(before);
  }, 60_000);

  it('disables live models left out of the file only with --disable-missing', async () => {
    const inFile = new Set(fixtureProfiles().map((p) => p.model));
    const enabledSeeds = [...(await live()).values()].filter((p) => !inFile.has(p.model) && !p.disabled).map((p) => p.model);
    expect(enabledSeeds.length).toBeGreaterThan(0);

    const dry = await run(jsonFixture, '--dry-run', '--disable-missing');
    expect(summary(dry.stdout).disabled).toBe(enabledSeeds.length);
    expect([...(await live()).values()].filter((p) => enabledSeeds.includes(p.model)).every((p) => !p.disabled)).toBe(true);

    // The JSON fixture also puts back the price the CSV test changed.
    const r = await run(jsonFixture, '--disable-missing');
    expect(r.code).toBe(0);
    expect(summary(r.stdout)).toEqual({ created: 0, updated: 1, unchanged: 49, disabled: enabledSeeds.length });
    const after = await live();
    for (const m of enabledSeeds) expect(after.get(m)!.disabled, m).toBe(true);

    const again = await run(jsonFixture, '--disable-missing');
    expect(summary(again.stdout)).toEqual({ created: 0, updated: 0, unchanged: 50, disabled: 0 });
  }, 60_000);

  it('reports a write the gateway refuses with its reason and exit code 1', async () => {
    const [a] = fixtureProfiles();
    const file = join(tmp, 'unregistered.json');
    writeFileSync(file, JSON.stringify([{ ...a!, model: 'acme-model', provider: 'acme-cloud', failover: [] }]));
    const r = await run(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the gateway refused create acme-model: HTTP 422 validation_failed: provider acme-cloud is not registered.');
    expect(r.stderr).toContain('0 of 1 steps were applied');
    expect((await live()).has('acme-model')).toBe(false);
  }, 60_000);

  it('answers usage errors with exit code 2 and changes nothing', async () => {
    expect((await runCli([], env())).code).toBe(2);
    expect((await runCli([jsonFixture], env())).code).toBe(2); // no --url
    expect((await runCli([jsonFixture, '--url', gw.url])).code).toBe(2); // no admin key
    expect((await runCli([join(tmp, 'missing.json'), '--url', gw.url], env())).code).toBe(2);
    expect((await runCli([jsonFixture, '--url', gw.url, '--bogus'], env())).code).toBe(2);
    const wrongKey = await runCli([jsonFixture, '--url', gw.url, '--admin-key', 'not-the-key']);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('HTTP 401');
  }, 60_000);
});

describe('the importer CSV reader', () => {
  it('reads quoted fields with commas, doubled quotes, line breaks and CRLF endings', () => {
    const text = '\ufeffa,b,c\r\n"x, y","say ""hi""",plain\r\n\r\n"multi\nline",,"" \n';
    expect(parseCsv(text)).toEqual([
      { fields: ['a', 'b', 'c'], line: 1 },
      { fields: ['x, y', 'say "hi"', 'plain'], line: 2 },
      { fields: ['multi\nline', '', ''], line: 4 },
    ]);
  });

  it('writes what it reads back unchanged', () => {
    const rows = [['model', 'note'], ['a/b:c', 'has, comma'], ['q', 'a "quote"'], ['n', 'two\nlines']];
    expect(parseCsv(toCsv(rows)).map((r) => r.fields)).toEqual(rows);
  });

  it('refuses an unclosed quote and a quote inside an unquoted field', () => {
    expect(() => parseCsv('a,b\n"open,1\n')).toThrow(/never closed/);
    expect(() => parseCsv('a,b\nx"y,1\n')).toThrow(/line 2: a quote inside an unquoted field/);
  });

  it('turns the CSV fixture into the same 50 profiles as the JSON fixture', () => {
    const fromCsv = validateRows(parseCsvCatalog(readFileSync(csvFixture, 'utf8')));
    const fromJson = validateRows(parseJsonCatalog(readFileSync(jsonFixture, 'utf8')));
    expect(fromCsv.errors).toEqual([]);
    expect(fromJson.errors).toEqual([]);
    expect(fromCsv.valid.map((v) => v.profile)).toEqual(fromJson.valid.map((v) => v.profile));
    expect(fromCsv.valid).toHaveLength(50);
  });

  it('fills the server defaults for columns a CSV leaves out', () => {
    const csv = 'model,provider,input_per_mtok,output_per_mtok,cached_input_per_mtok,cache_write_multiplier,input_modalities,output_modalities,tools,structured_outputs,reasoning_efforts,context_length,max_output_tokens\n' +
      'm1,openai,1,2,0.5,1,text|image,text,full,true,,1000,100\n';
    const { valid, errors } = validateRows(parseCsvCatalog(csv));
    expect(errors).toEqual([]);
    expect(valid[0]!.profile).toMatchObject({ disabled: false, failover: [], strengths: {}, search_only: false, moderation_only: false, reasoning_efforts: [] });
  });
});

describe('the importer plan order', () => {
  it('writes a model after the new models its failover names, and links failover cycles last', () => {
    const [base] = fixtureProfiles();
    const p = (model: string, failover: string[]): ModelProfile => ({ ...base!, model, failover });
    const diff = diffCatalog([p('a', ['b']), p('b', ['c']), p('c', []), p('x', ['y']), p('y', ['x']), p('live', ['a'])], [p('live', [])]);
    const steps = planSteps(diff, { disableMissing: false });
    const order = steps.map((s) => `${s.kind}:${s.model}`);
    expect(order.indexOf('create:c')).toBeLessThan(order.indexOf('create:b'));
    expect(order.indexOf('create:b')).toBeLessThan(order.indexOf('create:a'));
    expect(order.indexOf('create:a')).toBeLessThan(order.indexOf('update:live'));
    expect(order.at(-1)).toBe('link:x');
    const firstX = steps.find((s) => s.kind === 'create' && s.model === 'x')!;
    expect(firstX.kind === 'create' && firstX.profile.failover).toEqual([]);
  });
});
