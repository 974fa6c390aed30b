// The admin console in a real browser (Debian's Chromium through playwright-core),
// served by a real gateway: sign in with the admin key, edit a price inline, take a
// model out of routing, add a provider pointing at a mock vendor and test it, add a
// model through the form (the server's refusal shown at its field), each checked
// through the REST API. Screenshots go to apps/api/test/artifacts/ (not committed).
// Needs the web app built (npm test builds it first) and /usr/bin/chromium.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import type { ModelProfile } from '@optimizer/schema';
import { startGateway, type TestGateway } from './support/gateway.ts';

const CHROMIUM = '/usr/bin/chromium';
const distIndex = fileURLToPath(new URL('../../admin-web/dist/index.html', import.meta.url));
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));
const VENDOR_KEY = `sk-mock-${randomBytes(8).toString('hex')}`;

let gw: TestGateway;
let vendor: MockVendor;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(distIndex)) throw new Error('apps/admin-web/dist is missing: run `pnpm --filter @optimizer/admin-web build` (npm test does it first).');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  mkdirSync(artifacts, { recursive: true });
  [gw, vendor, browser] = await Promise.all([
    startGateway(),
    startOpenAIMock({ apiKey: VENDOR_KEY }),
    chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] }),
  ]);
  page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await vendor?.close();
});

async function restCatalog(): Promise<ModelProfile[]> {
  const r = await fetch(`${gw.url}/v1/admin/catalog`, { headers: { authorization: `Bearer ${gw.adminKey}` } });
  return ((await r.json()) as { data: ModelProfile[] }).data;
}
const restModel = async (name: string) => (await restCatalog()).find((m) => m.model === name);

describe('admin web app', () => {
  it('signs in, edits a price, disables a model, adds and tests a provider, and adds a model', async () => {
    // a deep link is served by the SPA fallback
    const res = await page.goto(`${gw.url}/optimizer/admin`);
    expect(res?.status()).toBe(200);

    // a wrong key is refused in place; the right one signs in
    await page.getByLabel('Admin key').fill('not-the-admin-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That is not the admin key.').waitFor();
    await page.screenshot({ path: `${artifacts}admin-web-signin.png` });
    await page.getByLabel('Admin key').fill(gw.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Model catalog' }).waitFor();
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);

    // inline price edit, saved on Enter, shown as saved, visible through REST
    const input = page.getByLabel('Input price of gpt-4o-mini', { exact: true });
    await input.fill('0.2');
    await input.press('Enter');
    await page.locator('tr[data-model="gpt-4o-mini"] .price-cell.state-saved').first().waitFor();
    expect((await restModel('gpt-4o-mini'))!.input_per_mtok).toBe(0.2);

    // the output price saves on blur; a bad value is refused by the shared schema before any request
    const output = page.getByLabel('Output price of gpt-4o-mini', { exact: true });
    await output.fill('0.75');
    await output.press('Tab');
    await expect.poll(async () => (await restModel('gpt-4o-mini'))!.output_per_mtok).toBe(0.75);
    const cached = page.getByLabel('Cached input price of gpt-4o-mini', { exact: true });
    await cached.fill('-1');
    await cached.press('Enter');
    await page.locator('tr[data-model="gpt-4o-mini"] .cell-error').getByText('Must be 0 or more').waitFor();
    await cached.press('Escape');
    expect((await restModel('gpt-4o-mini'))!.cached_input_per_mtok).toBeGreaterThanOrEqual(0);

    // sort by input price, cheapest first
    await page.getByRole('button', { name: /^Input/ }).click();
    expect(await page.locator('th[aria-sort="ascending"]').innerText()).toMatch(/input/i);
    const firstPrices = await page.locator('tbody tr td:nth-child(3) input').evaluateAll((els) => els.slice(0, 5).map((e) => Number((e as HTMLInputElement).value)));
    expect(firstPrices).toEqual([...firstPrices].sort((a, b) => a - b));

    // take a model out of routing
    const sw = page.getByRole('switch', { name: 'Route to gpt-4o', exact: true });
    await sw.click();
    await page.locator('tr[data-model="gpt-4o"] [role="switch"][aria-checked="false"]').waitFor();
    expect((await restModel('gpt-4o'))!.disabled).toBe(true);

    await page.getByRole('button', { name: /^Model/ }).click(); // back to by-name order for the screenshot
    await page.screenshot({ path: `${artifacts}admin-web.png` });

    // providers: add one pointing at the mock vendor, with a key, and test it
    await page.getByRole('link', { name: /Providers/ }).click();
    await page.waitForURL(/\/optimizer\/admin\/providers$/);
    await page.getByLabel('Name', { exact: true }).fill('acme-mock');
    await page.getByLabel('Base URL').fill(vendor.url);
    await page.getByLabel('API key').fill(VENDOR_KEY);
    await page.getByRole('button', { name: 'Add provider' }).click();
    const row = page.locator('tbody[data-provider="acme-mock"]');
    await row.getByText('key set').waitFor();
    const providers = await (await fetch(`${gw.url}/v1/admin/providers`, { headers: { authorization: `Bearer ${gw.adminKey}` } })).text();
    expect(providers).not.toContain(VENDOR_KEY);
    expect((JSON.parse(providers) as { data: { name: string; key_set: boolean; base_url: string }[] }).data.find((p) => p.name === 'acme-mock')).toMatchObject({ key_set: true, base_url: vendor.url });
    expect(await page.content()).not.toContain(VENDOR_KEY);

    await page.getByRole('button', { name: 'Test acme-mock' }).click();
    await row.locator('.test-result.ok').getByText('Reachable').waitFor();
    expect(await row.locator('.test-result').innerText()).toMatch(/HTTP 200 · \d+ ms/);
    expect(vendor.requests.at(-1)!.headers.authorization).toBe(`Bearer ${VENDOR_KEY}`);
    await page.screenshot({ path: `${artifacts}admin-web-providers.png` });

    // a model through the form: the server's refusal (an unknown failover) shows at its field, then it saves
    await page.getByRole('link', { name: /Catalog/ }).click();
    await page.getByRole('button', { name: 'Add model' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Add model' }).click();
    await dialog.getByText('Check the highlighted fields.').waitFor(); // client-side: the shared schema
    await dialog.getByLabel('Model name').fill('acme-chat');
    await dialog.getByLabel('Provider').selectOption('acme-mock');
    await dialog.getByLabel('Input', { exact: true }).fill('0.1');
    await dialog.getByLabel('Output', { exact: true }).fill('0.4');
    await dialog.getByLabel('Cached input', { exact: true }).fill('0.05');
    await dialog.getByLabel('Failover').fill('no-such-model');
    await dialog.getByRole('button', { name: 'Add model' }).click();
    await dialog.getByText(/The gateway refused: failover names models not in the catalog/).waitFor();
    expect(await dialog.getByLabel('Failover').getAttribute('aria-invalid')).toBe('true');
    await page.screenshot({ path: `${artifacts}admin-web-model-form.png` });
    await dialog.getByLabel('Failover').fill('gpt-4o-mini');
    await dialog.getByRole('button', { name: 'Add model' }).click();
    await page.locator('tr[data-model="acme-chat"]').waitFor();
    expect(await restModel('acme-chat')).toMatchObject({ provider: 'acme-mock', input_per_mtok: 0.1, output_per_mtok: 0.4, cached_input_per_mtok: 0.05, failover: ['gpt-4o-mini'] });

    // the one refused request is the wrong-key sign-in above
    expect(pageErrors.filter((e) => !/status of 401/.test(e))).toEqual([]);
  });

  it('fits a phone screen (390 px): sign-in, catalog, model form and providers, with no sideways scrolling', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    phone.setDefaultTimeout(10_000);
    phone.on('pageerror', (e) => pageErrors.push(e.message));
    const width = () => phone.evaluate(() => document.documentElement.scrollWidth);
    await phone.goto(`${gw.url}/optimizer/admin`);
    await phone.getByLabel('Admin key').waitFor();
    expect(await width()).toBeLessThanOrEqual(390);
    // the check box and its words on one line, as on a desktop
    const check = await phone.getByText('Stay signed in in this tab').boundingBox();
    const box = await phone.getByRole('checkbox').boundingBox();
    expect(Math.abs(check!.y + check!.height / 2 - (box!.y + box!.height / 2))).toBeLessThan(8);
    await phone.screenshot({ path: `${artifacts}admin-web-phone-signin.png` });
    await phone.getByLabel('Admin key').fill(gw.adminKey);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await phone.getByRole('heading', { name: 'Model catalog' }).waitFor();
    await phone.locator('tr[data-model="gpt-4o-mini"]').waitFor();
    expect(await width()).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: `${artifacts}admin-web-phone.png`, fullPage: true });
    await phone.getByRole('button', { name: 'Add model' }).click();
    await phone.getByRole('dialog').getByLabel('Model name').waitFor();
    expect(await width()).toBeLessThanOrEqual(390);
    await phone.keyboard.press('Escape');
    await phone.getByRole('link', { name: /Providers/ }).click();
    await phone.getByRole('heading', { name: /Providers/ }).first().waitFor();
    expect(await width()).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: `${artifacts}admin-web-phone-providers.png`, fullPage: true });
    await phone.close();
  });
});
