// One agent run: numbers its calls (seq from 0, is_start on the first), names each
// call's step and parent step, and reports outcomes under the same run id.
import type { OptimizerAnnotation } from '@optimizer/schema';
import type { Completions } from './resources/chat.ts';
import type { Outcomes } from './resources/outcomes.ts';
import type { ChatCompletionStream } from './stream.ts';
import type { ChatCompletionCreateParams, OptimizedChatCompletion, OutcomeSignals, RecordedOutcome, RequestOptions } from './types.ts';

export interface RunOptions {
  /** Defaults to a random UUID. */
  id?: string;
  /** Your code's release (e.g. a git sha), sent as optimizer.source.release. */
  release?: string;
}

export interface StepOptions extends RequestOptions {
  /** The step this call follows from (its id as passed to complete). */
  parent?: string;
  kind?: string;
  /** The quality bar in [0, 1] the served model must hold for this step. */
  minScore?: number;
  objective?: 'cost' | 'quality' | 'latency';
}

export class Run {
  readonly id: string;
  readonly release: string | undefined;
  readonly #completions: Completions;
  readonly #outcomes: Outcomes;
  #seq = 0;

  constructor(completions: Completions, outcomes: Outcomes, opts: RunOptions = {}) {
    this.id = opts.id ?? globalThis.crypto.randomUUID();
    this.release = opts.release;
    this.#completions = completions;
    this.#outcomes = outcomes;
  }

  /** How many calls this run has numbered so far (the next call's seq). */
  get calls(): number {
    return this.#seq;
  }

  /**
   * The annotation for the run's next call, merged over any `base` the caller set
   * (e.g. source.file or step.mode). Takes a seq number: call it once per request.
   */
  annotate(stepId: string, opts: Omit<StepOptions, keyof RequestOptions> = {}, base: OptimizerAnnotation = {}): OptimizerAnnotation {
    const seq = this.#seq++;
    const quality = opts.minScore === undefined ? base.step?.quality : { ...base.step?.quality, min_score: opts.minScore };
    const out: OptimizerAnnotation = {
      ...base,
      run: { ...base.run, id: this.id, seq, is_start: seq === 0, ...(opts.parent === undefined ? {} : { parent: opts.parent }) },
      step: { ...base.step, id: stepId, ...(opts.kind === undefined ? {} : { kind: opts.kind }), ...(quality ? { quality } : {}) },
    };
    if (opts.objective !== undefined) out.intent = { ...base.intent, objective: opts.objective };
    if (this.release !== undefined) out.source = { ...base.source, release: this.release };
    return out;
  }

  complete(stepId: string, body: ChatCompletionCreateParams & { stream?: false | null }, opts: StepOptions = {}): Promise<OptimizedChatCompletion> {
    const { parent, kind, minScore, objective, ...request } = opts;
    const optimizer = this.annotate(stepId, { parent, kind, minScore, objective }, body.optimizer);
    return this.#completions.create({ ...body, optimizer }, request);
  }

  stream(stepId: string, body: ChatCompletionCreateParams, opts: StepOptions = {}): ChatCompletionStream {
    const { parent, kind, minScore, objective, ...request } = opts;
    const optimizer = this.annotate(stepId, { parent, kind, minScore, objective }, body.optimizer);
    return this.#completions.stream({ ...body, optimizer }, request);
  }

  /** Reports the step's outcome under the run id; resolves with the outcome as recorded and the calls it was matched to. */
  outcome(stepId: string, signals: OutcomeSignals): Promise<RecordedOutcome> {
    return this.#outcomes.report({ run_id: this.id, step_id: stepId, signals });
  }
}
