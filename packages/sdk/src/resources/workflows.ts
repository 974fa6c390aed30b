// Workflow life: the stage, the live report and its stored versions, finalize, and the
// lockfile a production workflow routes by.
import { reportQuery, stageRequest, type Lockfile, type Report, type WorkflowStage } from '@optimizer/schema';
import { callCapability, type CallOptions, type CapabilityInput, type CapabilityOutput } from '../rest/route.ts';
import { seg, validate, type Transport } from '../transport.ts';
import { Steps } from './steps.ts';
import type { Input, Row } from '../trpc/outputs.ts';

/** One workflow in the list (spec 2.7). */
export type WorkflowSummary = Row<'workflows'>;

/** A production event (spec 6): drift, failover or resettled. */
export type WorkflowEvent = Row<'workflow.events'>;

export class Workflows {
  readonly #t: Transport;
  /** The step registry: list, exclude, and the calls behind a step. */
  readonly steps: Steps;

  constructor(t: Transport) {
    this.#t = t;
    this.steps = new Steps(t);
  }

  /** Every workflow with its stage and how many of its expected steps have settled. */
  list(): Promise<WorkflowSummary[]> {
    return this.#t.list<WorkflowSummary>({ method: 'GET', path: '/v1/workflows', auth: 'tenant' });
  }

  /** Production events of the last `days` days (default 7). */
  events(id: string, opts: Omit<Input<'workflow.events'>, 'id'> = {}): Promise<WorkflowEvent[]> {
    return this.#t.list<WorkflowEvent>({ method: 'GET', path: `/v1/workflows/${seg(id)}/events`, auth: 'tenant', query: { days: opts.days } });
  }

  /** The live report, or stored version `version`. */
  async report(id: string, opts: { version?: number } = {}): Promise<Report> {
    const q = validate(reportQuery, opts, 'GET /v1/workflows/:id/report');
    return this.#t.json<Report>({ method: 'GET', path: `/v1/workflows/${seg(id)}/report`, auth: 'tenant', query: { version: q.version } });
  }

  /** Stores the report as the next version, settled or not. */
  finalize(id: string): Promise<Report> {
    return this.#t.json<Report>({ method: 'POST', path: `/v1/workflows/${seg(id)}/report/finalize`, auth: 'tenant' });
  }

  /** The lockfile of the newest stored version. */
  lockfile(id: string): Promise<Lockfile> {
    return this.#t.json<Lockfile>({ method: 'GET', path: `/v1/workflows/${seg(id)}/report/lock`, auth: 'tenant' });
  }

  stage(id: string): Promise<{ id: string; stage: WorkflowStage }> {
    return this.#t.json({ method: 'GET', path: `/v1/workflows/${seg(id)}/stage`, auth: 'tenant' });
  }

  /** The workflow's recordings, newest first, a page at a time (`next_cursor` reads the next); `step` (a fingerprint) narrows to one step's. */
  recordings(id: string, opts: Omit<CapabilityInput<'workflow.recordings'>, 'id'> = {}, req?: CallOptions): Promise<CapabilityOutput<'workflow.recordings'>> {
    return callCapability(this.#t, 'workflow.recordings', { ...opts, id }, req);
  }

  /** One recording, in full (its id is its call's id). */
  recording(id: string, recordingId: string, req?: CallOptions): Promise<CapabilityOutput<'workflow.recording'>> {
    return callCapability(this.#t, 'workflow.recording', { id, recording_id: recordingId }, req);
  }

  /** The workflow's managed subscription. */
  subscription(id: string, req?: CallOptions): Promise<CapabilityOutput<'workflow.subscription'>> {
    return callCapability(this.#t, 'workflow.subscription', { id }, req);
  }

  /** Starts managed Production (needs a finalized report; charged from the wallet). */
  subscribe(id: string, req?: CallOptions): Promise<CapabilityOutput<'workflow.startSubscription'>> {
    return callCapability(this.#t, 'workflow.startSubscription', { id }, req);
  }

  /** Cancels the subscription at the end of the paid period. */
  cancelSubscription(id: string, req?: CallOptions): Promise<CapabilityOutput<'workflow.cancelSubscription'>> {
    return callCapability(this.#t, 'workflow.cancelSubscription', { id }, req);
  }

  /** Asks for production: it needs an active managed subscription (else 402 subscription_required). */
  async moveTo(id: string, stage: 'production'): Promise<{ id: string; stage: WorkflowStage }> {
    const body = validate(stageRequest, { stage }, 'POST /v1/workflows/:id/stage');
    return this.#t.json({ method: 'POST', path: `/v1/workflows/${seg(id)}/stage`, auth: 'tenant', body });
  }
}
