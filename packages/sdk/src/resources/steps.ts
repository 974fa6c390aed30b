// The step registry of a workflow (spec 4.2): list, exclude from the Expected Steps, and the
// stored calls behind a step's report entry.
import { seg, type Transport } from '../transport.ts';
import type { Input, Row } from '../trpc/outputs.ts';

/** One step as the registry shows it (spec 4.2). */
export type Step = Row<'workflow.steps'>;

/** A call behind a step's report entry, with its recording where the capture settings kept one. */
export type StepCall = Row<'workflow.stepCalls'>;

export class Steps {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  list(workflowId: string): Promise<Step[]> {
    return this.#t.list<Step>({ method: 'GET', path: `/v1/workflows/${seg(workflowId)}/steps`, auth: 'tenant' });
  }

  /** `excluded: true` takes the step out of the Expected Steps; `semantic_cache` gives it back or takes away the semantic cache. */
  update(workflowId: string, fingerprint: string, patch: Omit<Input<'workflow.patchStep'>, 'id' | 'fingerprint'>): Promise<Step> {
    return this.#t.json<Step>({ method: 'PATCH', path: `/v1/workflows/${seg(workflowId)}/steps/${seg(fingerprint)}`, auth: 'tenant', body: patch });
  }

  /** The stored responses behind the step's report entry, optionally for one model. */
  calls(workflowId: string, fingerprint: string, opts: Omit<Input<'workflow.stepCalls'>, 'id' | 'fingerprint'> = {}): Promise<StepCall[]> {
    return this.#t.list<StepCall>({ method: 'GET', path: `/v1/workflows/${seg(workflowId)}/steps/${seg(fingerprint)}/calls`, auth: 'tenant', query: { model: opts.model } });
  }
}
