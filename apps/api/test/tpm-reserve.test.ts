// Tokens-per-minute limits reserve before dispatch: each call holds its prompt's tokens plus
// the output it may write (max_tokens, else a default cap) and settles to what the answer
// used, so 20 concurrent calls against a 1,000-token limit are served within 10 % of it; the
// rest are refused 429 with Retry-After.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OUTPUT_RESERVE, outputReserve } from '../src/limits/rate-limits.ts';
import { authed, signup } from './support/gateway.ts';
import { startRig, type Rig } from './support/vendor.ts';

const LIMIT = 1_000;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
  // every answer uses 120 tokens: 20 of prompt and 100 written
  rig.vendor.script({ usage: { prompt_tokens: 20, completion_tokens: 100 } });
});
afterAll(async () => {
  await rig?.close();
});

/** Keeps a burst inside one minute, so the sliding window's weighting cannot blur the count. */
async function awayFromMinuteEdge(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 45_000) await new Promise((r) => setTimeout(r, 60_000 - into + 50));
}

async function limitedTenant(): Promise<string> {
  const t = await signup(rig.gw);
  const r = await fetch(`${rig.gw.url}/v1/settings/limits`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ tenant: { tokens_per_minute: LIMIT } }) });
  expect(r.status).toBe(200);
  return t.api_key;
}

/** 20 calls at once; the tokens the served ones used, and the refusals. */
async function burst(key: string, body: Record<string, unknown>): Promise<{ served: number; tokens: number; refused: Response[] }> {
  const rs = await Promise.all(
    Array.from({ length: 20 }, () =>
      fetch(`${rig.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: authed(key),
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi ${randomBytes(2).toString('hex')}` }], ...body }),
      }),
    ),
  );
  let tokens = 0;
  let served = 0;
  const refused: Response[] = [];
  for (const r of rs) {
    if (r.status === 200) {
      served++;
      tokens += ((await r.json()) as { usage: { total_tokens: number } }).usage.total_tokens;
    } else refused.push(r);
  }
  return { served, tokens, refused };
}

describe('the output a call may write', () => {
  it('is its max_completion_tokens or max_tokens (times n), else the default cap', () => {
    expect(outputReserve({ max_tokens: 100 })).toBe(100);
    expect(outputReserve({ max_completion_tokens: 40, max_tokens: 100 })).toBe(40);
    expect(outputReserve({ max_tokens: 50, n: 3 })).toBe(150);
    expect(outputReserve({})).toBe(DEFAULT_OUTPUT_RESERVE);
  });
});

describe('a tokens-per-minute limit under 20 concurrent calls', () => {
  it('serves within 10 % of the limit with max_tokens set, and refuses the rest with 429 and Retry-After', async () => {
    const key = await limitedTenant();
    await awayFromMinuteEdge();
    const { served, tokens, refused } = await burst(key, { max_tokens: 100 });
    expect(served).toBeGreaterThan(0);
    expect(tokens).toBeLessThanOrEqual(LIMIT * 1.1);
    expect(refused.length).toBe(20 - served);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    }
  });

  it('holds without max_tokens too (the default cap is reserved, then settled to the answer)', async () => {
    const key = await limitedTenant();
    await awayFromMinuteEdge();
    const first = await burst(key, {});
    expect(first.served).toBeGreaterThan(0);
    expect(first.tokens).toBeLessThanOrEqual(LIMIT * 1.1);
    // settled to what the answers used: the minute still has room for a call of its own
    const after = await fetch(`${rig.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: authed(key),
      body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'one more' }] }),
    });
    expect(after.status).toBe(200);
  });
});
