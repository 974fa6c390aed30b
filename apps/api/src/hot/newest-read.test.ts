import { describe, expect, it } from 'vitest';
import { NewestRead } from './newest-read.ts';

describe('the newest read', () => {
  it('drops a reload that began before one already applied', () => {
    const r = new NewestRead();
    const older = r.begin();
    const newer = r.begin();
    expect(r.apply(newer)).toBe(true);
    expect(r.apply(older)).toBe(false);
  });

  it('applies reloads that finish in the order they began', () => {
    const r = new NewestRead();
    expect(r.apply(r.begin())).toBe(true);
    expect(r.apply(r.begin())).toBe(true);
  });

  it('reads through a query: an older read that finishes last comes back undefined', async () => {
    const r = new NewestRead();
    let releaseOlder: (v: string) => void = () => {};
    const older = r.read(() => new Promise<string>((resolve) => (releaseOlder = resolve)));
    expect(await r.read(async () => 'newer')).toBe('newer');
    releaseOlder('older');
    expect(await older).toBeUndefined();
  });
});
