// Seeded randomness for the routing benchmark: every random choice (order, outcome sampling,
// judge noise) comes from here, so a run is reproduced by its --seed. Not for secrets.

/** mulberry32: a tiny 32-bit generator; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over the UTF-16 code units of `s`: a 32-bit seed from a text key. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** One draw in [0, 1) that depends only on (seed, key): the same key gives the same draw whatever the call order. */
export function drawFor(seed: number, key: string): number {
  return mulberry32(hash32(`${seed}|${key}`))();
}

/** Fisher–Yates shuffle into a new array. */
export function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
