// Turns a diff into ordered steps and runs them against the admin API. The gateway
// refuses a profile whose failover names a model it does not hold yet, so a model is
// written after the new models its failover names; models that name each other in a
// cycle are first written without the not-yet-created names and then linked.
import type { ModelProfile } from '../../packages/schema/src/index.ts';
import type { CatalogDiff, FieldChange } from './diff.ts';

export type Step =
  | { kind: 'create'; model: string; profile: ModelProfile; /** failover names left out until the `link` step */ deferred?: string[] }
  | { kind: 'update'; model: string; profile: ModelProfile; changes: FieldChange[] }
  | { kind: 'link'; model: string; profile: ModelProfile }
  | { kind: 'disable'; model: string };

/** The admin catalog calls the importer needs (the SDK's client.admin.catalog fits). */
export interface CatalogApi {
  list(): Promise<ModelProfile[]>;
  put(model: string, profile: ModelProfile): Promise<ModelProfile>;
  setDisabled(model: string, disabled: boolean): Promise<ModelProfile>;
}

type Write = Extract<Step, { kind: 'create' | 'update' }>;

export function planSteps(diff: CatalogDiff, opts: { disableMissing: boolean }): Step[] {
  const creating = new Set(diff.create.map((p) => p.model));
  const writes: Write[] = [
    ...diff.create.map((p): Write => ({ kind: 'create', model: p.model, profile: p })),
    ...diff.update.map((u): Write => ({ kind: 'update', model: u.profile.model, profile: u.profile, changes: u.changes })),
  ];
  // A write waits for the models it names in failover that do not exist yet.
  const waitsFor = (s: Write, done: Set<string>) =>
    s.profile.failover.filter((m) => m !== s.model && creating.has(m) && !done.has(m));

  const ordered: Step[] = [];
  const links: Step[] = [];
  const done = new Set<string>();
  let pending = writes;
  while (pending.length) {
    const ready = pending.filter((s) => waitsFor(s, done).length === 0);
    if (ready.length) {
      for (const s of ready) {
        ordered.push(s);
        done.add(s.model);
      }
      pending = pending.filter((s) => !ready.includes(s));
      continue;
    }
    // Every pending write waits on another: there is a failover cycle, which only new
    // models can form (existing models wait on nothing). Walk the waits to a model on the
    // cycle, write it without the names still missing, and link it in full at the end.
    const byName = new Map(pending.map((s) => [s.model, s]));
    const seen = new Set<string>();
    let breakAt: Write | undefined = pending.find((s) => s.kind === 'create');
    while (breakAt && !seen.has(breakAt.model)) {
      seen.add(breakAt.model);
      breakAt = byName.get(waitsFor(breakAt, done)[0]!);
    }
    if (!breakAt) throw new Error('internal: stuck ordering the writes without a failover cycle');
    const deferred = waitsFor(breakAt, done);
    const partial = { ...breakAt.profile, failover: breakAt.profile.failover.filter((m) => !deferred.includes(m)) };
    ordered.push({ kind: 'create', model: breakAt.model, profile: partial, deferred });
    links.push({ kind: 'link', model: breakAt.model, profile: breakAt.profile });
    done.add(breakAt.model);
    pending = pending.filter((s) => s !== breakAt);
  }
  ordered.push(...links);
  if (opts.disableMissing) for (const p of diff.missing) ordered.push({ kind: 'disable', model: p.model });
  return ordered;
}

export interface ApplyResult {
  applied: number;
  failed?: { step: Step; message: string };
}

/** Runs the steps in order; stops at the first refusal (later steps may depend on it). */
export async function applySteps(api: CatalogApi, steps: Step[], onStep: (s: Step) => void = () => {}): Promise<ApplyResult> {
  let applied = 0;
  for (const step of steps) {
    try {
      if (step.kind === 'disable') await api.setDisabled(step.model, true);
      else await api.put(step.model, step.profile);
    } catch (e) {
      return { applied, failed: { step, message: describeError(e) } };
    }
    applied++;
    onStep(step);
  }
  return { applied };
}

/** An SDK OptimizerError (or any error) as one line: status, code, message and param. */
export function describeError(e: unknown): string {
  const err = e as { status?: number; code?: string | null; param?: string | null; message?: string };
  const parts = [err.status ? `HTTP ${err.status}` : null, err.code ?? null].filter(Boolean).join(' ');
  return `${parts ? `${parts}: ` : ''}${err.message ?? String(e)}${err.param ? ` (param: ${err.param})` : ''}`;
}
