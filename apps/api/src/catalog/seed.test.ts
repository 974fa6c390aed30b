import { describe, expect, it } from 'vitest';
import { modelProfileSchema } from '@optimizer/schema';
import { seedCatalog } from './seed.ts';

const byName = new Map(seedCatalog.map((m) => [m.model, m]));

describe('the seeded model catalog', () => {
  it('parses every entry with the model profile schema', () => {
    for (const entry of seedCatalog) {
      const result = modelProfileSchema.safeParse(entry);
      expect(result.error?.issues ?? [], entry.model).toEqual([]);
    }
  });

  it('rejects a profile with a field the schema does not know', () => {
    const [first] = seedCatalog;
    expect(modelProfileSchema.safeParse({ ...first, surprise: true }).success).toBe(false);
  });

  it('names every model once', () => {
    const names = seedCatalog.map((m) => m.model);
    const repeated = names.filter((n, i) => names.indexOf(n) !== i);
    expect(repeated).toEqual([]);
  });

  it('points every failover at a model in the seed on a different provider', () => {
    for (const entry of seedCatalog) {
      for (const target of entry.failover) {
        const other = byName.get(target);
        expect(other, `${entry.model} -> ${target}`).toBeDefined();
        expect(other?.provider, `${entry.model} -> ${target}`).not.toBe(entry.provider);
      }
    }
  });

  it('fails over only to enabled models, each named once per chain', () => {
    for (const entry of seedCatalog) {
      expect(new Set(entry.failover).size, entry.model).toBe(entry.failover.length);
      for (const target of entry.failover) expect(byName.get(target)?.disabled, `${entry.model} -> ${target}`).toBe(false);
    }
  });

  it('never prices cached input above fresh input', () => {
    for (const entry of seedCatalog) {
      expect(entry.cached_input_per_mtok, entry.model).toBeLessThanOrEqual(entry.input_per_mtok);
    }
  });

  it('keeps each output cap within its context window', () => {
    for (const entry of seedCatalog) {
      expect(entry.max_output_tokens, entry.model).toBeLessThanOrEqual(entry.context_length);
    }
  });
});
