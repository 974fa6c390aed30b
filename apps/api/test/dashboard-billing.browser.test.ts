// The dashboard's billing page in a real browser (Debian's Chromium through playwright-core),
// served by a real gateway: set auto top-up (a bad amount refused in the form by the server's
// own schema), turn it off, and set the tenant's rate limits (a value above the platform's
// ceiling refused in place), each read back over REST. Screenshot to apps/api/test/artifacts/.
// Needs the web app built (npm test builds it first) and /usr/bin/chromium.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, startGateway, type TestGateway } from './support/gateway.ts';
import { usd } from '../../admin-web/src/dashboard/money.ts';

const CHROMIUM = '/usr/bin/chromium';
const distIndex = fileURLToPath(new URL('../../admin-web/dist/index.html', import.meta.url));
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));

let gw: TestGateway;
let browser: Browser;
let page: Page;
let tenant: { api_key: string; email: string };
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(distIndex)) throw new Error('apps/admin-web/dist is missing: run `pnpm --filter @optimizer/admin-web build` (npm test does it first).');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  mkdirSync(artifacts, { recursive: true });
  [gw, browser] = await Promise.all([
    startGateway({ env: { RATE_LIMIT_CEILING_RPM: '500', RATE_LIMIT_CEILING_TPM: '200000' } }),
    chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] }),
  ]);
  const email = `${randomBytes(6).toString('hex')}@example.com`;
  const r = await fetch(`${gw.url}/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ company: 'Billing Co', email }) });
  tenant = { ...((await r.json()) as { api_key: string }), email };
  page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().includes('status of 401')) pageErrors.push(m.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

const restGet = async (path: string) => (await fetch(`${gw.url}${path}`, { headers: authed(tenant.api_key) })).json() as Promise<any>;

describe('the billing page', () => {
  it("charts the year's savings ledger, sets auto top-up and turns it off, and sets rate limits within the ceiling, through GraphQL", { timeout: 60_000 }, async () => {
    await page.goto(`${gw.url}/optimizer/`);
    await page.getByLabel('Email').fill(tenant.email);
    await page.getByLabel('API key').fill(tenant.api_key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.getByRole('heading', { name: 'Auto top-up' }).waitFor();
    expect(await page.getByTestId('auto-topup-state').textContent()).toBe('Off.');
    // the savings ledger of the last twelve months, as a chart with its totals
    await page.getByRole('heading', { name: 'Savings by month' }).waitFor();
    expect(await page.getByTestId('savings-ledger-chart').locator('svg').count()).toBeGreaterThan(0);
    const now = new Date();
    const yearFrom = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1)).toISOString().slice(0, 10);
    const ledger = (await restGet(`/v1/billing/savings-ledger?from=${yearFrom}`)) as { data: { period: string }[]; totals: { saving_usd: number } };
    expect(ledger.data).toHaveLength(12);
    // money as the dashboard writes it: to the micro-dollar, `$0` for nothing
    expect(await page.getByText(/over the last twelve months/).textContent()).toContain(`Saved ${usd(ledger.totals.saving_usd)} ·`);

    // auto top-up: an amount under the minimum is refused in the form, then a good one saved
    const topup = page.getByRole('form', { name: 'Auto top-up' });
    await topup.getByLabel('Below (USD)').fill('5');
    await topup.getByLabel('Charge (USD)').fill('0.5');
    await topup.getByRole('button', { name: 'Save auto top-up' }).click();
    await page.locator('#topup-amount-error').waitFor();
    await topup.getByLabel('Charge (USD)').fill('25');
    await topup.getByRole('button', { name: 'Save auto top-up' }).click();
    await page.getByText('Auto top-up saved.').waitFor();
    await expect.poll(async () => (await page.getByTestId('auto-topup-state').textContent()) ?? '').toMatch(/^On: \$25\.00\d* when the wallet falls below \$5\.00/);
    expect((await restGet('/v1/billing')).auto_topup).toMatchObject({ threshold_usd: 5, amount_usd: 25 });

    // rate limits: above the ceiling refused in place, then saved and read back
    const limits = page.getByRole('form', { name: 'Rate limits' });
    await limits.getByLabel('Requests per minute').fill('501');
    await limits.getByRole('button', { name: 'Save rate limits' }).click();
    await page.locator('#rpm-error').getByText(/ceiling/).waitFor();
    await limits.getByLabel('Requests per minute').fill('120');
    await limits.getByLabel('Tokens per minute').fill('50000');
    await limits.getByRole('button', { name: 'Save rate limits' }).click();
    await page.getByText('Rate limits saved.').waitFor();
    expect(await restGet('/v1/settings/limits')).toEqual({ tenant: { requests_per_minute: 120, tokens_per_minute: 50_000 }, keys: [], ceiling: { requests_per_minute: 500, tokens_per_minute: 200_000 } });
    await page.screenshot({ path: `${artifacts}dashboard-billing.png`, fullPage: true });

    // auto top-up off
    await topup.getByRole('button', { name: 'Turn off' }).click();
    await page.getByText('Auto top-up turned off.').waitFor();
    await expect.poll(async () => page.getByTestId('auto-topup-state').textContent()).toBe('Off.');
    expect((await restGet('/v1/billing')).auto_topup).toBeNull();
    expect(pageErrors).toEqual([]);
  });
});
