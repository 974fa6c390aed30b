// Compares the file's profiles with the live catalog: which models are new, which
// change (and in which fields), which stay the same, and which live models the file
// leaves out.
import type { ModelProfile } from '../../packages/schema/src/index.ts';
import { profileFields } from './parse.ts';

export interface FieldChange {
  field: keyof ModelProfile;
  from: unknown;
  to: unknown;
}

export interface Update {
  profile: ModelProfile;
  changes: FieldChange[];
}

export interface CatalogDiff {
  create: ModelProfile[];
  update: Update[];
  unchanged: ModelProfile[];
  /** Live models the file leaves out that are still enabled (disabled with --disable-missing). */
  missing: ModelProfile[];
}

/** JSON with object keys sorted, so {a,b} and {b,a} compare equal; arrays keep their order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export function changedFields(live: ModelProfile, next: ModelProfile): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of profileFields) {
    if (canonical(live[field]) !== canonical(next[field])) changes.push({ field, from: live[field], to: next[field] });
  }
  return changes;
}

export function diffCatalog(desired: ModelProfile[], live: ModelProfile[]): CatalogDiff {
  const liveByName = new Map(live.map((p) => [p.model, p]));
  const inFile = new Set(desired.map((p) => p.model));
  const out: CatalogDiff = { create: [], update: [], unchanged: [], missing: [] };
  for (const p of desired) {
    const current = liveByName.get(p.model);
    if (!current) {
      out.create.push(p);
      continue;
    }
    const changes = changedFields(current, p);
    if (changes.length) out.update.push({ profile: p, changes });
    else out.unchanged.push(p);
  }
  out.missing = live.filter((p) => !inFile.has(p.model) && !p.disabled);
  return out;
}
