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
});
