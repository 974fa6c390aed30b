// The cron ticks a schedule fires on: the first after a time, and the most recent one in a window
// (what a schedule found late fires for, once).
import { describe, expect, it } from 'vitest';
import { latestTick, nextTick, parseCron } from './cron.ts';

const at = (s: string) => new Date(s);

describe('cron ticks', () => {
  it('finds the first minute after a time', () => {
    expect(nextTick(parseCron('0 9 * * 1-5'), at('2026-11-27T09:00:30Z'))).toEqual(at('2026-11-30T09:00:00Z')); // Friday 09:00 passed: Monday
    expect(nextTick(parseCron('*/15 * * * *'), at('2026-11-27T09:07:00Z'))).toEqual(at('2026-11-27T09:15:00Z'));
  });

  it('finds the most recent tick within a window, and none older than it', () => {
    const hourly = parseCron('20 * * * *');
    // down since 04:20; at 09:35 the most recent due tick is 09:20, whatever the number missed
    expect(latestTick(hourly, at('2026-11-27T09:35:10Z'), at('2026-11-27T04:20:00Z'))).toEqual(at('2026-11-27T09:20:00Z'));
    // a window of ten minutes does not reach 09:20
    expect(latestTick(hourly, at('2026-11-27T09:35:10Z'), at('2026-11-27T09:25:10Z'))).toBeNull();
    // the tick at the very minute counts (on time)
    expect(latestTick(hourly, at('2026-11-27T09:20:40Z'), at('2026-11-27T09:19:40Z'))).toEqual(at('2026-11-27T09:20:00Z'));
    // never before the schedule's first unfired tick
    expect(latestTick(hourly, at('2026-11-27T09:35:00Z'), at('2026-11-27T09:21:00Z'))).toBeNull();
  });
});
