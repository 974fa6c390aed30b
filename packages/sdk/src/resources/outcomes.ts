// POST /v1/outcomes: what happened after a step, which the router learns from.
import { z } from 'zod';
import { validate, type Transport } from '../transport.ts';
import type { OutcomeReport, RecordedOutcome } from '../types.ts';

const id = z.string().min(1).max(256);

/** Strict, so a misspelled signal name is refused rather than silently dropped. */
export const outcomeReportSchema = z
  .object({
    run_id: id,
    step_id: id,
    signals: z
      .object({
        schema_valid: z.boolean().optional(),
        tool_executed: z.boolean().optional(),
        retried: z.boolean().optional(),
        run_completed: z.boolean().optional(),
        human_verdict: z.enum(['accepted', 'edited', 'rejected']).optional(),
        score: z.number().min(0).max(1).optional(),
      })
      .strict(),
  })
  .strict();

export class Outcomes {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  /** Reports what happened after a step; the answer names the run's calls the outcome was matched to. */
  async report(report: OutcomeReport, opts: { signal?: AbortSignal } = {}): Promise<RecordedOutcome> {
    const body = validate(outcomeReportSchema, report, 'POST /v1/outcomes');
    return this.#t.json<RecordedOutcome>({ method: 'POST', path: '/v1/outcomes', auth: 'tenant', body, signal: opts.signal });
  }
}
