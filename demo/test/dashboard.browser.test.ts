// The tenant dashboard in a real browser (Debian's Chromium through playwright-core) after
// `npm run demo`: sign in with the demo tenant's email and key, see the savings chart with
// non-zero data, open a workflow and a settled step, finalize and download the lockfile, and
// edit a setting (the form refuses what the server would, and the saved value reads back over
// REST); with PII redaction on, a call carrying an e-mail shows its guard finding (kind,
// count, action, never the address) on the call's detail, a graded call its grades, and calls
// older than the newest 500 load on request. The calls view sorts by cost, filters by step
// and exports a CSV whose actual_cost sums to the savings spend; an explored call's detail
// lists its attempts (the answer, probes, grades) and the policy and evidence behind it; no
// page (sign-in, overview, calls with a detail open, a workflow, the admin console signed in with the demo's printed key)
// is wider than a 390 px phone. Screenshots at desktop and phone width;
// `UPDATE_SCREENS=1` writes them to docs/screens/ (committed, referenced from the README),
// otherwise to a temporary folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadData } from '../../bench/routing/data.ts';
import { afterAll, beforeAll, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
const root = join(import.meta.dirname, '..', '..');
const screens = process.env.UPDATE_SCREENS === '1' ? join(root, 'docs', 'screens') : mkdtempSync(join(tmpdir(), 'dashboard-screens-'));

interface Demo {
  saving_usd: number;
  dashboard: { url: string; email: string; api_key: string };
  admin: { url: string; admin_key: string };
}

let demo: ChildProcess;
let info: Demo;
let browser: Browser;
const pageErrors: string[] = [];

/** Starts the demo (without --exit) and resolves with its summary once its calls are driven. */
function startDemo(): Promise<Demo> {
  demo = spawn(process.execPath, [join(root, 'demo', 'run.ts'), '--json'], { cwd: root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir() } });
  let out = '';
  let err = '';
  demo.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((resolve, reject) => {
    demo.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n', out.indexOf(line))) resolve(JSON.parse(line) as Demo);
    });
    demo.on('exit', (code) => reject(new Error(`the demo exited (${code}): ${err.slice(-2000)}`)));
  });
}

beforeAll(async () => {
  if (!existsSync(join(root, 'apps', 'admin-web', 'dist', 'index.html'))) throw new Error('apps/admin-web/dist is missing: run `pnpm --filter @optimizer/admin-web build` (npm test does it first).');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  [info, browser] = await Promise.all([startDemo(), chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] })]);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (demo && demo.exitCode === null) {
    const exited = new Promise((r) => demo.once('exit', r));
    demo.kill('SIGTERM');
    await exited;
  }
});

async function newPage(width: number, height: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    // before sign-in the page asks whether a session holds; the 401 that says no is the
    // designed answer, and the browser logs it as a failed resource
    if (m.type() === 'error' && !m.text().includes('status of 401')) pageErrors.push(m.text());
  });
  return page;
}

async function signIn(page: Page): Promise<void> {
  await page.goto(info.dashboard.url);
  await page.getByLabel('Email').fill(info.dashboard.email);
  await page.getByLabel('API key').fill(info.dashboard.api_key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('saved').waitFor();
}

it('signs in, shows the saving over time, opens a step, downloads the lockfile and edits a setting', { timeout: 120_000 }, async () => {
  expect(info.saving_usd).toBeGreaterThan(0);
  const page = await newPage(1360, 900);
  await signIn(page);
  // the saving the demo made, and a chart drawn from it
  expect(await page.getByTestId('saved').textContent()).not.toBe('$0.0000');
  await page.locator('[data-testid=savings-chart] .recharts-area-area').first().waitFor();
  expect(await page.locator('[data-testid=savings-chart] .recharts-area-area').count()).toBeGreaterThanOrEqual(1);
  await page.screenshot({ path: join(screens, 'dashboard-desktop.png'), fullPage: true });

  // a workflow, and a step that settled on a cheaper model, with its evidence
  await page.getByRole('link', { name: /Demo Co|default/i }).first().click();
  await page.getByTestId('settled-count').waitFor();
  const settled = page.locator('details.dash-step', { hasText: 'settled' }).first();
  await settled.locator('summary').click();
  await expect.poll(() => settled.locator('tbody tr').count()).toBeGreaterThanOrEqual(1);
  await page.screenshot({ path: join(screens, 'dashboard-workflow.png'), fullPage: true });

  // the report frozen, then its lockfile downloaded
  await page.getByRole('button', { name: 'Finalize report' }).click();
  await page.getByText(/Report version \d+ stored/).waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download lockfile' }).click()]);
  const lock = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { steps: { label: string; model: string | null }[] };
  expect(lock.steps.length).toBeGreaterThanOrEqual(4);
  // a step pinned to a cheaper model (which one the demo settles on varies with the order its calls land in)
  expect(lock.steps.some((s) => s.model === 'gpt-4o-mini' || s.model === 'claude-3-haiku'), JSON.stringify(lock.steps)).toBe(true);

  // a setting: refused in the form as the server would, then saved and read back over REST
  await page.getByRole('link', { name: 'Settings' }).click();
  const floor = page.getByLabel('Quality floor');
  await floor.fill('1.5');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.locator('#qualityFloor-error').waitFor();
  await floor.fill('0.9');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText('Routing settings saved.').waitFor();
  const rest = await fetch(new URL('/v1/settings/routing', info.dashboard.url), { headers: { authorization: `Bearer ${info.dashboard.api_key}` } });
  expect(((await rest.json()) as { quality_floor: number }).quality_floor).toBe(0.9);
  expect(pageErrors).toEqual([]);
});

it('fits a phone screen', { timeout: 60_000 }, async () => {
  const page = await newPage(390, 844);
  await signIn(page);
  await page.locator('[data-testid=savings-chart] .recharts-area-area').first().waitFor();
  // nothing wider than the screen: no sideways scrolling
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: join(screens, 'dashboard-phone.png'), fullPage: true });
  expect(pageErrors).toEqual([]);
});

/** The tenant's savings totals over REST, once two reads a second apart agree (the last calls' learning metered). */
async function settledSavings(): Promise<{ calls: number; actual_cost: number }> {
  const read = async () => (await (await fetch(new URL('/v1/dashboard/savings', info.dashboard.url), { headers: { authorization: `Bearer ${info.dashboard.api_key}` } })).json()) as { calls: number; actual_cost: number };
  let last = await read();
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const next = await read();
    if (JSON.stringify(next) === JSON.stringify(last)) return next;
    last = next;
  }
  throw new Error('the savings totals did not settle');
}

/** A CSV file's rows as objects (the export quotes cells holding a comma, a quote or a line break). */
function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') endCell();
    else if (ch === '\n') {
      endCell();
      rows.push(row);
      row = [];
    } else if (ch !== '\r') cell += ch;
  }
  const [head, ...body] = rows;
  return body.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i] ?? ''])));
}

const micros = (usd: string | number) => Math.round(Number(usd) * 1e6);

it('the calls view sorts, filters by step, and exports a CSV whose actual_cost sums to the dashboard spend', { timeout: 120_000 }, async () => {
  const page = await newPage(1360, 900);
  // the sign-in form keeps a form's width on a wide screen
  await page.goto(info.dashboard.url);
  expect((await page.locator('form.signin').boundingBox())!.width).toBeLessThanOrEqual(400);
  await signIn(page);
  await page.getByRole('link', { name: 'Calls' }).click();
  await page.getByTestId('call-row').first().waitFor();
  // money to the micro-dollar: never a cost rounded to $0.0000
  expect(await page.getByTestId('call-cost').allTextContents()).not.toContain('$0.0000');

  // sorted by cost, most expensive first, then the other way round
  const costs = async () => (await page.getByTestId('call-cost').evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-micros')))));
  await page.getByRole('button', { name: /^Cost/ }).click();
  await expect.poll(async () => { const c = await costs(); return c.length > 1 && c.every((x, i) => i === 0 || c[i - 1]! >= x); }).toBe(true);
  const highest = (await costs())[0]!;
  await page.getByRole('button', { name: /^Cost/ }).click();
  await expect.poll(async () => { const c = await costs(); return c.every((x, i) => i === 0 || c[i - 1]! <= x); }).toBe(true);
  expect((await costs())[0]!).toBeLessThanOrEqual(highest);

  // filtered by step: only that step's calls, as many as the API has for it
  const auth = { authorization: `Bearer ${info.dashboard.api_key}` };
  const contract = (await (await fetch(new URL('/v1/calls?step=contract-risk&limit=500', info.dashboard.url), { headers: auth })).json()) as { data: unknown[] };
  expect(contract.data.length).toBeGreaterThan(0);
  await page.getByLabel('Step').selectOption('contract-risk');
  await expect.poll(() => page.getByTestId('call-count').textContent()).toBe(`${contract.data.length} calls`);
  expect(new Set(await page.getByTestId('call-step').allTextContents())).toEqual(new Set(['contract-risk']));
  await page.screenshot({ path: join(screens, 'dashboard-calls.png'), fullPage: false });

  // the CSV of the filtered calls holds that step's calls only
  const [stepCsv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  const stepRows = parseCsv(readFileSync((await stepCsv.path())!, 'utf8'));
  expect(stepRows).toHaveLength(contract.data.length);
  expect(new Set(stepRows.map((r) => r.step))).toEqual(new Set(['contract-risk']));

  // every call, exported: as many as the dashboard counts, their actual_cost summing to its spend
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect.poll(() => page.getByTestId('call-count').textContent()).toBe('500 calls');
  const savings = await settledSavings();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  const rows = parseCsv(readFileSync((await download.path())!, 'utf8'));
  expect(rows).toHaveLength(savings.calls);
  expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  expect(rows.reduce((sum, r) => sum + micros(r.actual_cost!), 0)).toBe(micros(savings.actual_cost));
  expect(pageErrors).toEqual([]);
});

it("a call's detail shows its attempts and the policy behind it", { timeout: 60_000 }, async () => {
  const auth = { authorization: `Bearer ${info.dashboard.api_key}` };
  // a call that explored: its probes and the judge's grades are attempts of their own
  let explored: { id: string } | undefined;
  let after = '';
  while (!explored) {
    const page = (await (await fetch(new URL(`/v1/calls?limit=500${after}`, info.dashboard.url), { headers: auth })).json()) as { data: { id: string; cost: { exploration: number }; policy: unknown }[] };
    explored = page.data.find((c) => c.cost.exploration > 0 && c.policy !== null);
    if (page.data.length < 500) break;
    after = `&starting_after=${page.data.at(-1)!.id}`;
  }
  expect(explored, 'a call of the demo that explored').toBeDefined();
  const rest = (await (await fetch(new URL(`/v1/calls/${explored!.id}`, info.dashboard.url), { headers: auth })).json()) as { attempts: { role: string }[]; policy: { key: string } };

  const page = await newPage(1360, 900);
  await signIn(page);
  await page.getByRole('link', { name: 'Calls' }).click();
  await page.getByTestId('call-row').first().waitFor();
  if ((await page.getByRole('button', { name: `Detail of call ${explored!.id}` }).count()) === 0) {
    // older than the newest 500: load them
    await page.getByRole('button', { name: 'Load 500 older calls' }).click();
  }
  await page.getByLabel('Filter calls').fill(explored!.id);
  await page.getByRole('button', { name: `Detail of call ${explored!.id}` }).click();
  await expect.poll(() => page.getByTestId('call-attempt').count()).toBe(rest.attempts.length);
  const attempts = await page.getByTestId('call-attempt').allTextContents();
  expect(attempts.some((a) => /serve/.test(a))).toBe(true);
  expect(attempts.some((a) => /probe|judge/.test(a))).toBe(true);
  const policy = (await page.getByTestId('call-policy').textContent())!;
  expect(policy).toContain(rest.policy.key);
  expect(policy).toMatch(/Quality bar\s*\d+\.\d%/);
  expect(await page.getByTestId('call-evidence').textContent()).toMatch(/samples|baseline itself/);
  expect(await page.getByTestId('call-reason').count()).toBeGreaterThan(0);
  await page.screenshot({ path: join(screens, 'dashboard-call-attempts.png'), fullPage: true });
  expect(pageErrors).toEqual([]);
});

it('no page overflows a 390 px phone: sign-in, overview, calls with a detail open, a workflow, the admin console', { timeout: 90_000 }, async () => {
  const page = await newPage(390, 844);
  const width = () => page.evaluate(() => document.documentElement.scrollWidth);
  await page.goto(info.dashboard.url);
  await page.getByLabel('Email').waitFor();
  expect(await width()).toBeLessThanOrEqual(390);
  await page.screenshot({ path: join(screens, 'dashboard-signin-phone.png') });
  await signIn(page);
  await page.getByTestId('saving-by-step').waitFor();
  await page.getByTestId('traffic-chart').waitFor();
  expect(await width()).toBeLessThanOrEqual(390);
  // the money explained: exploration apart, per step in dollars
  expect(await page.getByTestId('money-explained').textContent()).toMatch(/exploration/);

  await page.getByRole('link', { name: 'Calls' }).click();
  await page.getByTestId('call-row').first().waitFor();
  await page.getByRole('button', { name: /^Detail of call/ }).first().click();
  await page.getByTestId('call-attempt').first().waitFor();
  expect(await width()).toBeLessThanOrEqual(390);
  await page.screenshot({ path: join(screens, 'dashboard-calls-phone.png') });

  await page.getByRole('link', { name: 'Overview' }).click();
  // the overview first: until it renders, the calls view's links are still on the page to be clicked
  await page.getByTestId('saving-by-step').waitFor();
  await page.getByRole('link', { name: /Demo Co|default/i }).first().click();
  await page.getByTestId('settled-count').waitFor();
  // titled by the workflow's name, not its id
  expect(await page.getByTestId('workflow-title').textContent()).not.toMatch(/^wf_/);
  for (const summary of await page.locator('details.dash-step summary').all()) await summary.click();
  await page.getByTestId('candidate').first().waitFor();
  expect(await width()).toBeLessThanOrEqual(390);
  // each candidate once, and no estimate reading below 0
  for (const step of await page.locator('details.dash-step').all()) {
    const names = await step.locator('[data-testid=candidate] td:first-child').allTextContents();
    expect(new Set(names).size).toBe(names.length);
  }
  for (const e of await page.getByTestId('estimate').allTextContents()) expect(e).not.toMatch(/[−-]\d/);
  await page.screenshot({ path: join(screens, 'dashboard-workflow-phone.png'), fullPage: true });

  // the admin console the demo printed, signed in with the key it printed
  await page.goto(info.admin.url);
  await page.getByLabel('Admin key').waitFor();
  expect(await width()).toBeLessThanOrEqual(390);
  await page.getByLabel('Admin key').fill(info.admin.admin_key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Model catalog' }).waitFor();
  expect(await width()).toBeLessThanOrEqual(390);
  await page.screenshot({ path: join(screens, 'admin-console-phone.png'), fullPage: true });
  expect(pageErrors).toEqual([]);
});

it('shows a call\'s guard finding on its detail, never the value, a graded call\'s grades, and older calls on request', { timeout: 90_000 }, async () => {
  const auth = { authorization: `Bearer ${info.dashboard.api_key}`, 'content-type': 'application/json' };
  const put = await fetch(new URL('/v1/settings/guard', info.dashboard.url), { method: 'PUT', headers: auth, body: JSON.stringify({ redact_pii: true }) });
  expect(put.status).toBe(200);
  // a recorded prompt (so the demo's vendor has its answer) behind a system line with an e-mail in it
  const data = loadData(join(root, 'demo', 'recorded'));
  const row = data.rows[0]!;
  const email = 'jane.doe@example.com';
  const res = await fetch(new URL('/v1/chat/completions', info.dashboard.url), {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ model: data.models.baseline, messages: [{ role: 'system', content: `The customer writes from ${email}.` }, ...row.messages] }),
  });
  expect(res.status).toBe(200);
  const callId = res.headers.get('x-optimizer-call-id')!;
  expect(callId).toBeTruthy();

  // the call is metered in the background: its record is read over REST until it is written (under a loaded
  // machine, reloading the page to look took most of a shorter wait), then the list shows it
  await expect.poll(async () => (await fetch(new URL(`/v1/calls/${callId}`, info.dashboard.url), { headers: auth })).status, { timeout: 45_000, interval: 250 }).toBe(200);
  const page = await newPage(1360, 900);
  await signIn(page);
  await page.getByRole('link', { name: 'Calls' }).click();
  // each look gives the reloaded list a few seconds to arrive: counted at once, a list still loading read
  // 0 on every look on a slow machine, and the wait ran out with the call in the database
  const detail = page.getByRole('button', { name: `Detail of call ${callId}` });
  await expect
    .poll(
      async () => {
        await page.reload();
        await page.getByLabel('Filter calls').fill(callId);
        await detail.waitFor({ state: 'attached', timeout: 5_000 }).catch(() => undefined);
        return detail.count();
      },
      { timeout: 30_000 },
    )
    .toBe(1);
  await detail.click();
  const finding = page.getByTestId('guard-finding');
  await finding.waitFor();
  expect(await finding.count()).toBe(1);
  const text = (await finding.textContent())!;
  expect(text).toContain('email');
  expect(text).toContain('× 1');
  expect(text).toContain('redacted');
  expect(await page.getByTestId('call-detail').textContent()).not.toContain(email);
  await page.screenshot({ path: join(screens, 'dashboard-call-detail.png'), fullPage: true });

  // a call of the demo the judge graded shows its grades on its detail: the newest graded one, which may lie past the
  // 500 the list first loads once the demo's steps have settled (they probe no more), so older pages are read until one
  // holds it, and the list loads as many older pages (each click waits for its page's first call to show)
  type Listed = { id: string; grades: unknown[] };
  const pages: Listed[][] = [];
  let graded: Listed | undefined;
  while (!graded && pages.length < 10) {
    const after = pages.length > 0 ? `&starting_after=${pages.at(-1)!.at(-1)!.id}` : '';
    const batch = ((await (await fetch(new URL(`/v1/calls?limit=500${after}`, info.dashboard.url), { headers: auth })).json()) as { data: Listed[] }).data;
    pages.push(batch);
    graded = batch.find((c) => c.grades.length > 0);
    if (batch.length < 500) break;
  }
  expect(graded, 'a graded call among the demo\'s').toBeDefined();
  for (const batch of pages.slice(1)) {
    await page.getByLabel('Filter calls').fill(batch[0]!.id);
    await page.getByRole('button', { name: 'Load 500 older calls' }).click();
    await expect.poll(() => page.getByRole('button', { name: `Detail of call ${batch[0]!.id}` }).count()).toBe(1);
  }
  await page.getByLabel('Filter calls').fill(graded!.id);
  await page.getByRole('button', { name: `Detail of call ${graded!.id}` }).click();
  await expect.poll(() => page.getByTestId('call-grade').count()).toBe(graded!.grades.length);
  expect(await page.getByTestId('call-grade').first().textContent()).toMatch(/Probe|Served answer|Judge check/);

  // the demo's calls are more than the list has loaded: older ones come on request
  const older = (await (await fetch(new URL(`/v1/calls?limit=5&starting_after=${pages.at(-1)!.at(-1)!.id}`, info.dashboard.url), { headers: auth })).json()) as { data: { id: string }[] };
  expect(older.data.length, 'calls older than the list has loaded').toBeGreaterThan(0);
  const old = older.data[0]!.id;
  await page.getByLabel('Filter calls').fill(old);
  expect(await page.getByRole('button', { name: `Detail of call ${old}` }).count()).toBe(0);
  await page.getByRole('button', { name: 'Load 500 older calls' }).click();
  await expect.poll(() => page.getByRole('button', { name: `Detail of call ${old}` }).count()).toBe(1);
  expect(pageErrors).toEqual([]);
});
