// The doors' counters are sliding windows (door-throttle.ts): an address cannot make twice its
// limit across a window's edge, a flood is not forgotten the moment the edge passes, and the
// Retry-After it is told is when its next attempt fits.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryHotStore } from '../hot/memory.ts';
import { doorLimits, DoorThrottle } from './door-throttle.ts';

const MINUTE = 60_000;
const limits = doorLimits({ DOOR_SIGNUP_PER_HOUR: 3, DOOR_LOGIN_PER_MINUTE: 10, DOOR_ESTIMATE_PER_MINUTE: 10, DOOR_ADMIN_PER_MINUTE: 10, DOOR_BAD_KEY_PER_MINUTE: 10 });

let hot: MemoryHotStore;
let doors: DoorThrottle;
/** A minute's edge, in the clock's own minutes. */
const EDGE = Math.ceil(Date.now() / MINUTE + 10) * MINUTE;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  hot = new MemoryHotStore();
  doors = new DoorThrottle(hot, limits);
});
afterEach(async () => {
  vi.useRealTimers();
  await hot.close();
});

/** Attempts at `door` from `ip` at time `at`: how many were let through. */
async function attempts(n: number, at: number, ip = '192.0.2.1', door: 'login' | 'signup' = 'login'): Promise<number> {
  vi.setSystemTime(at);
  let through = 0;
  for (let i = 0; i < n; i++) {
    try {
      await doors.hit(door, ip);
      through++;
    } catch {
      /* refused */
    }
  }
  return through;
}

describe('a door without a key', () => {
  it('lets an address make its limit, not twice its limit, across a window edge', async () => {
    expect(await attempts(10, EDGE - 500)).toBe(10);
    // a fixed window would start again here and let ten more through
    expect(await attempts(10, EDGE + 500)).toBe(0);
    // a quarter of the way into the window after, a quarter of the refused one has slid out: room for two
    expect(await attempts(10, EDGE + MINUTE + MINUTE / 4 + 500)).toBe(2);
  });

  it('keeps a flood refused past the edge, and tells it when its next attempt fits', async () => {
    vi.setSystemTime(EDGE + MINUTE / 2);
    for (let i = 0; i < 40; i++) await doors.hit('login', '192.0.2.2').catch(() => undefined);
    let refusal: unknown;
    await doors.hit('login', '192.0.2.2').catch((e: unknown) => (refusal = e));
    const after = Number((refusal as { headers: Record<string, string> }).headers['retry-after']);
    // forty-one counted in this window: refused for the rest of it and until enough of it has slid out
    expect(after).toBeGreaterThan(MINUTE / 2 / 1000);
    expect(after).toBeLessThanOrEqual((MINUTE / 2 + MINUTE) / 1000 + 1);
    // still refused just past the edge, where a fixed window had forgotten it (another address flooded alike)
    vi.setSystemTime(EDGE + MINUTE / 2);
    for (let i = 0; i < 41; i++) await doors.hit('login', '192.0.2.5').catch(() => undefined);
    expect(await attempts(1, EDGE + MINUTE + 500, '192.0.2.5')).toBe(0);
    // let through once the Retry-After has passed
    expect(await attempts(1, EDGE + MINUTE / 2 + after * 1000 + 1_000, '192.0.2.2')).toBe(1);
  });

  it('counts each address on its own, and an hour-long door by the hour', async () => {
    expect(await attempts(5, EDGE, '192.0.2.3', 'signup')).toBe(3);
    expect(await attempts(3, EDGE, '192.0.2.4', 'signup')).toBe(3);
  });
});
