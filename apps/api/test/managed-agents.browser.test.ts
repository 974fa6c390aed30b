// The dashboard's Agents tab in a real browser (Debian's Chromium through playwright-core),
// served by a real gateway with a mock vendor: sign in with email and key, see an action
// agent, start a run from the page, watch its events arrive over the run's event stream (on
// the session cookie), click Approve on the proposed call, and see it executed: the loopback
// connection (reachable only through the operator allow-list, OUTBOUND_ALLOW_LIST) is called
// once. Screenshots go to apps/api/test/artifacts/ (not committed). Needs the web app built
// (npm test builds it first) and /usr/bin/chromium.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLoopback, type Loopback } from './support/loopback.ts';
import { restFor, type Rest } from './support/managed.ts';
import { startRig, type Rig } from './support/vendor.ts';

const CHROMIUM = '/usr/bin/chromium';
const distIndex = fileURLToPath(new URL('../../admin-web/dist/index.html', import.meta.url));
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));

let rig: Rig;
let target: Loopback;
let browser: Browser;
let rest: Rest;
const tenant = { email: `${randomBytes(6).toString('hex')}@example.com`, api_key: '' };
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(distIndex)) throw new Error('apps/admin-web/dist is missing: run `pnpm --filter @optimizer/admin-web build` (npm test does it first).');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  mkdirSync(artifacts, { recursive: true });
  [rig, target, browser] = await Promise.all([
    startRig({ env: { OUTBOUND_ALLOW_LIST: '127.0.0.1/32' } }),
    startLoopback((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"ticket":"T-42"}');
    }),
    chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] }),
  ]);
  const signed = await fetch(`${rig.gw.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 'Agents Co', email: tenant.email }) });
  tenant.api_key = ((await signed.json()) as { api_key: string }).api_key;
  rest = restFor(rig.gw.url, tenant.api_key);
  expect((await rest('/v1/settings/routing', { method: 'PUT', body: { allowed_providers: ['openai'], baseline_model: 'gpt-4.1' } })).status).toBe(200);
  expect((await rest('/v1/connections/tickets', { method: 'PUT', body: { base_url: `${target.url}/api`, secret: 'tk-browser-0123456789' } })).status).toBe(201);
  const agent = await rest('/v1/managed-agents', { method: 'POST', body: { name: 'ticketer', config: { kind: 'action', model: 'gpt-4.1-mini', connection: 'tickets', instructions: 'File a ticket for the problem described.' } } });
  expect(agent.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await rig?.close();
  await target?.close();
});

it('starts an action run from the Agents tab, shows its events live, and approving its call calls the connection once', { timeout: 90_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    // before sign-in the page asks whether a session holds; the 401 that says no is the designed answer
    if (m.type() === 'error' && !m.text().includes('status of 401')) pageErrors.push(m.text());
  });
  await page.goto(`${rig.gw.url}/optimizer/`);
  await page.getByLabel('Email').fill(tenant.email);
  await page.getByLabel('API key').fill(tenant.api_key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('saved').waitFor();

  await page.getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('heading', { name: 'ticketer' }).waitFor();
  await page.getByText('No runs yet.').waitFor();

  rig.vendor.script({ tool_calls: [{ name: 'tickets', arguments: JSON.stringify({ method: 'POST', path: '/tickets', body: { title: 'Printer on fire' } }) }] });
  const seen = target.seen.length;
  await page.getByLabel('Input for ticketer').fill('The printer is on fire.');
  await page.getByRole('button', { name: 'Start run' }).click();

  // the run's page: its events arrive over the stream, and the proposed call waits with an Approve button
  await page.locator('[data-testid=run-events] [data-type="run.waiting_approval"]').waitFor();
  const types = async () => page.locator('[data-testid=run-events] li').evaluateAll((els) => els.map((e) => e.getAttribute('data-type')));
  expect(await types()).toEqual(['run.started', 'step.started', 'step.completed', 'action.proposed', 'run.waiting_approval']);
  await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('waiting approval');
  const action = page.getByTestId('managed-action');
  await action.getByText('POST /tickets').waitFor();
  expect(await action.getByTestId('action-status').textContent()).toBe('proposed');
  expect(target.seen.length).toBe(seen); // nothing runs before approval
  await page.screenshot({ path: `${artifacts}dashboard-run-waiting.png`, fullPage: true });

  rig.vendor.script({ content: 'Filed as T-42.' }); // the model's turn after the call's result: its answer
  await action.getByRole('button', { name: 'Approve' }).click();
  await page.locator('[data-testid=run-events] [data-type="run.completed"]').waitFor();
  expect(await types()).toEqual([
    'run.started', 'step.started', 'step.completed', 'action.proposed', 'run.waiting_approval',
    'action.executing', 'action.executed', 'actions.returned', 'step.started', 'step.completed', 'run.completed',
  ]);
  await expect.poll(() => action.getByTestId('action-status').textContent()).toBe('executed');
  await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('completed');
  expect(await action.getByRole('button', { name: 'Approve' }).count()).toBe(0);
  await action.getByText('Answered 201').waitFor();
  await page.screenshot({ path: `${artifacts}dashboard-run-approved.png`, fullPage: true });

  // the connection was called once, with the call the model proposed and the connection's secret
  expect(target.seen.length).toBe(seen + 1);
  expect(target.seen.at(-1)).toMatchObject({ method: 'POST', path: '/api/tickets', body: '{"title":"Printer on fire"}' });
  expect(target.seen.at(-1)!.headers.authorization).toBe('Bearer tk-browser-0123456789');

  // the Agents tab lists the run, completed
  await page.getByRole('link', { name: 'Agents' }).click();
  const row = page.locator('[data-testid=managed-agent] tbody tr').first();
  await row.getByText('completed').waitFor();
  expect(pageErrors).toEqual([]);
});

it("sets and removes an agent's schedule from its card, and cancels a waiting run from its page, each through the API", { timeout: 90_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${rig.gw.url}/optimizer/`);
  await page.getByLabel('Email').fill(tenant.email);
  await page.getByLabel('API key').fill(tenant.api_key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('saved').waitFor();
  const agentId = ((await rest('/v1/managed-agents')).body.data as { id: string; name: string }[]).find((a) => a.name === 'ticketer')!.id;

  // the schedule: none, then set from the card's form, read back from the API, then removed
  await page.getByRole('link', { name: 'Agents' }).click();
  const card = page.getByTestId('agent-schedule');
  await card.getByText('No schedule').waitFor();
  await page.getByLabel('Cron for ticketer').fill('30 8 * * *');
  await page.getByLabel('Scheduled run input, ticketer').fill('the overnight tickets');
  await page.getByLabel('Catch-up window (s) for ticketer').fill('600');
  await page.getByRole('button', { name: 'Set schedule' }).click();
  await card.getByTestId('schedule-summary').getByText('30 8 * * *').waitFor();
  const set = await rest(`/v1/managed-agents/${agentId}/schedule`);
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({ cron: '30 8 * * *', input: 'the overnight tickets', catch_up_s: 600, last_tick: null });
  expect(await card.getByTestId('schedule-next').textContent()).toBe(`${set.body.next_at.replace('T', ' ').slice(0, 16)} UTC`);
  // a bad expression is the API's 422, shown on the card; the schedule stays
  await page.getByLabel('Cron for ticketer').fill('61 * * * *');
  await page.getByRole('button', { name: 'Replace schedule' }).click();
  await card.getByRole('alert').getByText(/cron/).waitFor();
  expect((await rest(`/v1/managed-agents/${agentId}/schedule`)).body.cron).toBe('30 8 * * *');
  await page.screenshot({ path: `${artifacts}dashboard-agent-schedule.png`, fullPage: true });
  await card.getByRole('button', { name: 'Remove schedule' }).click();
  await card.getByText('No schedule').waitFor();
  expect((await rest(`/v1/managed-agents/${agentId}/schedule`)).status).toBe(404);

  // a run that waits for approval is cancelled from its page: its call never runs
  rig.vendor.script({ tool_calls: [{ name: 'tickets', arguments: JSON.stringify({ method: 'POST', path: '/tickets', body: { title: 'Never sent' } }) }] });
  const seen = target.seen.length;
  await page.getByLabel('Input for ticketer').fill('Cancel me.');
  await page.getByRole('button', { name: 'Start run' }).click();
  await page.locator('[data-testid=run-events] [data-type="run.waiting_approval"]').waitFor();
  const runId = decodeURIComponent(new URL(page.url()).hash.replace('#/runs/', ''));
  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.locator('[data-testid=run-events] [data-type="run.cancelled"]').waitFor();
  await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('cancelled');
  expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
  expect(await page.getByTestId('managed-action').getByRole('button', { name: 'Approve' }).count()).toBe(0);
  const run = (await rest(`/v1/managed-runs/${runId}`)).body;
  expect(run).toMatchObject({ id: runId, status: 'cancelled', actions: [{ status: 'failed', error: 'cancelled' }] });
  expect(target.seen.length).toBe(seen);
  await page.screenshot({ path: `${artifacts}dashboard-run-cancelled.png`, fullPage: true });
  expect(pageErrors).toEqual([]);
});
