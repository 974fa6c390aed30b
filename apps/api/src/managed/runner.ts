// Runs managed runs: a chain's steps one after the other, or an action agent's loop of turns
// (agent-loop.ts), each LLM call through the gateway's own completion pipeline under the agent's tenant and
// workflow. A run is held by one runner at a time (a lease renewed while it runs); a run
// left without a runner (its replica stopped or died) is taken over by a sweep and resumed
// at the step it had reached. The run was counted once, when it started; resuming never
// counts it again. A step started MAX_ATTEMPTS times without finishing ends the run failed.
import { setTimeout as sleep } from 'node:timers/promises';
import { chainConfig } from '@optimizer/schema';
import type { Logger } from '../logger.ts';
import type { PipelineHandler } from '../pipeline/reply.ts';
import { runLoop, type LoopContext } from './agent-loop.ts';
import { gatewayCall, type GatewayAnswer } from './gateway-call.ts';
import type { StepLedger } from './step-ledger.ts';
import type { RunRow, RunStore } from './run-store.ts';

/** How often a step whose call is still claimed by a dead runner asks again. */
const IN_FLIGHT_RETRY_MS = 2_000;

/** Starts of one step (first run plus resumes) before the run is failed instead of resumed again. */
export const MAX_ATTEMPTS = 3;

const LOST = (step: string) => `Step ${step} was answered and metered, but the gateway stopped before it kept the answer; it is not sent again, so it is not paid twice.`;

const fill = (template: string, input: string, previous: string) => template.replaceAll('{{input}}', input).replaceAll('{{previous}}', previous);

export class Runner {
  readonly #store: RunStore;
  readonly #logger: Logger;
  #handler: PipelineHandler | null = null;
  #ledger: StepLedger | null = null;
  /** Runs this replica is driving, with their promises. */
  readonly #active = new Map<string, Promise<void>>();
  #closing = false;
  #sweep: NodeJS.Timeout | null = null;
  #renew: NodeJS.Timeout | null = null;

  readonly #actions: Pick<LoopContext, 'tools' | 'execute'> | null;

  /** `actions`: the tenant's connections as tools and the execution of one action, for action runs. */
  constructor(store: RunStore, logger: Logger, actions?: Pick<LoopContext, 'tools' | 'execute'>) {
    this.#store = store;
    this.#logger = logger;
    this.#actions = actions ?? null;
  }

  /** The completion pipeline's handler (set once the services exist); runs wait for it. */
  attach(handler: PipelineHandler, ledger: StepLedger): void {
    this.#handler = handler;
    this.#ledger = ledger;
  }

  /** Resumes runs left without a runner, now and every `sweepMs`; keeps this replica's leases alive. */
  start(sweepMs: number): void {
    const sweep = () => void this.#adoptOrphans().catch((err: Error) => this.#logger.warn({ err: err.message }, 'managed runs: the sweep for runs without a runner failed'));
    sweep();
    this.#sweep = setInterval(sweep, sweepMs);
    this.#renew = setInterval(() => void this.#store.renew([...this.#active.keys()]).catch(() => undefined), (this.#store.leaseSeconds * 1000) / 3);
    this.#sweep.unref();
    this.#renew.unref();
  }

  async #adoptOrphans(): Promise<void> {
    if (this.#closing || this.#handler === null) return;
    for (const id of await this.#store.orphans()) {
      if (this.#active.has(id)) continue;
      const run = await this.#store.claim(id);
      if (run) this.drive(run, true);
    }
  }

  /** Drives a run this replica holds (claimed, or just created with its lease). */
  drive(run: RunRow, resumed = false): void {
    const p = this.#drive(run, resumed)
      .catch(async (err: Error) => {
        this.#logger.error({ run: run.id, err: err.message }, 'managed run failed inside the runner');
        await this.#finish(run.id, 'failed', { error: 'internal', message: 'The run stopped on an internal error.' }).catch(() => undefined);
      })
      .finally(() => {
        if (this.#active.get(run.id) === p) this.#active.delete(run.id); // a loop run resumed by its last action is driven anew
      });
    this.#active.set(run.id, p);
  }

  async #drive(run: RunRow, resumed: boolean): Promise<void> {
    if (resumed) await this.#store.append(run.id, 'run.resumed', { step: run.state.next });
    if (run.kind === 'chain') return this.#chain(run);
    return this.#loop(run);
  }

  #principal(run: RunRow) {
    return { accountId: run.account_id, workflowId: run.workflow_id, keyId: run.key_id };
  }

  /**
   * One LLM call under the step's Idempotency-Key. A step started before (`again`: its runner
   * stopped or died) is first looked up: an answered key replays; a call metered whose answer
   * is gone is not sent again (the run fails, 'metered'), so a step is never paid twice; a claim
   * the dead runner left in flight is dropped. A key held by a live request (409
   * idempotency_in_flight) is waited out, not counted as a failure; null when this replica
   * stops meanwhile (the run is left for the next runner).
   */
  async #call(run: RunRow, key: string, seq: number, again: boolean, body: Record<string, unknown>): Promise<GatewayAnswer | 'metered' | null> {
    const idempotencyKey = `managed:${run.id}:${key}`;
    if (again && (await this.#ledger!.prior(run, idempotencyKey, seq)) === 'metered') return 'metered';
    for (;;) {
      const answer = await gatewayCall(this.#handler!, this.#principal(run), body, idempotencyKey);
      if (answer.ok || answer.body.code !== 'idempotency_in_flight') return answer;
      await sleep(IN_FLIGHT_RETRY_MS);
      if (this.#closing) return null;
    }
  }

  async #chain(run: RunRow): Promise<void> {
    const config = chainConfig.parse(run.config);
    const state = run.state;
    while (state.next < config.steps.length) {
      if (this.#closing) return; // left for the next runner, at this step
      if (await this.#store.cancelled(run.id)) return;
      const step = config.steps[state.next]!;
      state.attempts += 1;
      if (state.attempts > MAX_ATTEMPTS) return this.#finish(run.id, 'failed', { error: 'interrupted', message: `Step ${step.name} was started ${MAX_ATTEMPTS} times without finishing.` });
      await this.#store.sql(`update managed_runs set state = ?, updated_at = now() where id = ?`, [JSON.stringify(state), run.id]);
      await this.#store.append(run.id, 'step.started', { step: step.name, index: state.next, attempt: state.attempts });
      const previous = state.next === 0 ? run.input : (state.outputs[config.steps[state.next - 1]!.name] ?? '');
      const answer = await this.#call(run, `step:${state.next}`, state.next, state.attempts > 1, {
        model: step.model ?? config.model,
        messages: [{ role: 'user', content: fill(step.prompt, run.input, previous) }],
        optimizer: { run: { id: run.id, seq: state.next, is_start: state.next === 0 }, step: { id: `${run.agent_id ?? 'playground'}:${step.name}` } },
      });
      if (answer === null) return;
      if (answer === 'metered') return this.#finish(run.id, 'failed', { step: step.name, error: 'interrupted', message: LOST(step.name) });
      if (!answer.ok) return this.#finish(run.id, 'failed', { step: step.name, error: answer.body.code ?? 'error', message: answer.body.message ?? 'The step failed.' });
      const output = String(answer.body.choices?.[0]?.message?.content ?? '');
      state.outputs[step.name] = output;
      state.next += 1;
      state.attempts = 0;
      await this.#store.tx(async (em) => {
        await this.#store.sql(`update managed_runs set state = ?, updated_at = now() where id = ?`, [JSON.stringify(state), run.id], em);
        await this.#store.append(run.id, 'step.completed', { step: step.name, index: state.next - 1, call_id: answer.callId, model: answer.body.model ?? null, output, optimizer: answer.body.optimizer ?? null }, em);
      });
      this.#store.news.emit(run.id);
    }
    state.output = state.outputs[config.steps.at(-1)!.name];
    await this.#store.sql(`update managed_runs set state = ? where id = ?`, [JSON.stringify(state), run.id]);
    await this.#finish(run.id, 'completed', { output: state.output ?? '' });
  }

  #loop(run: RunRow): Promise<void> {
    if (!this.#actions) throw new Error('a loop run needs the connections (Runner actions)');
    return runLoop(
      {
        store: this.#store,
        maxAttempts: MAX_ATTEMPTS,
        closing: () => this.#closing,
        call: (r, key, seq, again, body) => this.#call(r, key, seq, again, body),
        finish: (id, status, data) => this.#finish(id, status, data),
        tools: this.#actions.tools,
        execute: this.#actions.execute,
        settle: (id) => this.settleActions(id),
      },
      run,
    );
  }

  /** Ends a run (once): its status and the last event. */
  async #finish(runId: string, status: 'completed' | 'failed', data: Record<string, unknown>): Promise<void> {
    await this.#store.tx(async (em) => {
      const rows = await this.#store.sql(
        `update managed_runs set status = ?, error = ?, lease_until = null, updated_at = now() where id = ? and status in ('running', 'waiting_approval') returning id`,
        [status, status === 'failed' ? String(data.message ?? data.error ?? 'failed') : null, runId],
        em,
      );
      if (rows.length > 0) await this.#store.append(runId, status === 'completed' ? 'run.completed' : 'run.failed', data, em);
    });
    this.#store.news.emit(runId);
  }

  /** Ends an action run once none of its actions waits any more. */
  async settleActions(runId: string): Promise<void> {
    const open = await this.#store.sql<{ n: number }>(`select count(*)::int as n from managed_actions where run_id = ? and status in ('proposed', 'executing')`, [runId]);
    if (open[0]!.n > 0) return;
    const run = await this.#store.run(runId);
    // a run started before every action agent looped (its stored config has no step cap) had one
    // proposal turn: its actions done, it ends as it would have, rather than asking the model afresh
    if (run?.kind === 'action' && run.config.max_steps === undefined) return this.#finish(runId, 'completed', {});
    // a loop run goes on with the results: taken (once) by whoever saw its last action end
    const [resumed] = await this.#store.sql<RunRow>(
      `update managed_runs set status = 'running', lease_until = now() + interval '${this.#store.leaseSeconds} seconds', updated_at = now() where id = ? and status = 'waiting_approval' returning *`,
      [runId],
    );
    if (resumed && !this.#closing) this.drive(resumed);
    else if (resumed) await this.#store.release([runId]);
  }

  /** Stops taking runs, lets each finish the step it is in, and frees their leases for the next runner. */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#sweep) clearInterval(this.#sweep);
    if (this.#renew) clearInterval(this.#renew);
    const ids = [...this.#active.keys()];
    await Promise.allSettled(this.#active.values());
    await this.#store.release(ids).catch(() => undefined);
  }
}
