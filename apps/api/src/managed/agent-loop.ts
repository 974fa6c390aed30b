// An action agent's run: a bounded loop (max_steps, default 8) of model turns through the gateway's own
// completion pipeline, with the tenant's connections as tools (one OpenAI tool each). Each
// tool call becomes a proposed action; it waits for a person's approval unless the agent's
// auto_approve names its tool. Once none of a turn's actions waits, their results (status and
// body, cut) go back to the model as tool messages and the next turn starts. The run ends on
// the model's answer (no tool call), at the step cap (run.failed step_cap_reached), or on a
// failed turn, or a cancel. The conversation lives in the run's state, so a run taken over resumes it.
import { actionConfig, proposedCall, type ProposedCall } from '@optimizer/schema';
import type { GatewayAnswer } from './gateway-call.ts';
import type { ActionRow, RunRow, RunStore } from './run-store.ts';

/** The most of an action's answer body fed back to the model. */
export const MAX_FED_BACK = 4_000;

export interface LoopState {
  messages?: Record<string, unknown>[];
  turn?: number;
  /** The last turn's actions whose results are not yet fed back, with the tool call each answers. */
  pending?: { action: string; tool_call_id: string }[];
}

export interface LoopContext {
  store: RunStore;
  maxAttempts: number;
  closing: () => boolean;
  call: (run: RunRow, key: string, seq: number, again: boolean, body: Record<string, unknown>) => Promise<GatewayAnswer | 'metered' | null>;
  finish: (runId: string, status: 'completed' | 'failed', data: Record<string, unknown>) => Promise<void>;
  /** The tenant's connection names (the tools). */
  tools: (accountId: string) => Promise<string[]>;
  /** Executes one proposed action once (its events and row), throwing what the connection refused. */
  execute: (accountId: string, runId: string, actionId: string) => Promise<unknown>;
  /** Resumes a waiting run once none of its actions waits. */
  settle: (runId: string) => Promise<void>;
}

const toolDef = (name: string, methods: string[], auto: boolean) => ({
  type: 'function',
  function: {
    name,
    description: `One HTTP call to the connection "${name}"; ${auto ? 'it runs at once' : 'a person approves it before it runs'}, and its status and body come back as the result.`,
    parameters: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: methods },
        path: { type: 'string', description: 'Path on the connection, starting with /' },
        body: { type: 'object', description: 'JSON body for a POST' },
      },
      required: ['method', 'path'],
      additionalProperties: false,
    },
  },
});

/** What the model reads back for one action. */
export function resultText(a: ActionRow | undefined): string {
  if (!a) return 'error: the action is gone';
  if (a.status === 'failed') return `error: ${a.error ?? 'failed'} (the call was not completed)`;
  const body = a.response_body ?? '';
  return `HTTP ${a.response_status}\n${body.length > MAX_FED_BACK ? `${body.slice(0, MAX_FED_BACK)}\n[cut at ${MAX_FED_BACK} characters]` : body}`;
}

type ToolCall = { id?: string; function?: { name?: string; arguments?: string } };

function parseCall(c: ToolCall, tools: string[], methods: string[]): ProposedCall | string {
  if (!tools.includes(c.function?.name ?? '')) return `no tool ${c.function?.name ?? ''}`;
  let args: unknown;
  try {
    args = JSON.parse(c.function?.arguments ?? '');
  } catch {
    return 'the arguments are not JSON';
  }
  if (args && typeof args === 'object' && typeof (args as { path?: unknown }).path === 'string' && !(args as { path: string }).path.startsWith('/')) {
    args = { ...args, path: `/${(args as { path: string }).path}` };
  }
  const p = proposedCall.safeParse(args);
  if (!p.success) return p.error.issues[0]?.message ?? 'invalid arguments';
  return methods.includes(p.data.method) ? p.data : `method ${p.data.method} is not allowed for this agent`;
}

export async function runLoop(ctx: LoopContext, run: RunRow): Promise<void> {
  const config = actionConfig.parse(run.config);
  const max = config.max_steps; // a run stored before the cap was always set reads the default
  const auto = new Set(config.auto_approve ?? []);
  const state = run.state as RunRow['state'] & LoopState;
  const save = (em?: Parameters<RunStore['sql']>[2]) => ctx.store.sql(`update managed_runs set state = ?, updated_at = now() where id = ?`, [JSON.stringify(state), run.id], em);
  state.messages ??= [
    { role: 'system', content: `You act on the tenant's connections through their tools (methods: ${config.methods.join(', ')}); each call's status and body come back to you. Answer in text when you are done.` },
    { role: 'user', content: `${config.instructions}\n\n${run.input}`.trim() },
  ];
  for (;;) {
    if (ctx.closing()) return; // left for the next runner, at this turn
    if (await ctx.store.cancelled(run.id)) return;
    if (state.pending && state.pending.length > 0) {
      const rows = await ctx.store.actions(run.id);
      for (const p of state.pending) state.messages.push({ role: 'tool', tool_call_id: p.tool_call_id, content: resultText(rows.find((r) => r.id === p.action)) });
      await ctx.store.append(run.id, 'actions.returned', { actions: state.pending.map((p) => p.action) });
      state.pending = [];
      await save();
    }
    const turn = state.turn ?? 0;
    if (turn >= max) return ctx.finish(run.id, 'failed', { error: 'step_cap_reached', max_steps: max, message: `The run reached its step cap of ${max} model turns without an answer.` });
    state.attempts += 1;
    if (state.attempts > ctx.maxAttempts) return ctx.finish(run.id, 'failed', { error: 'interrupted', message: `Turn ${turn} was started ${ctx.maxAttempts} times without finishing.` });
    await save();
    await ctx.store.append(run.id, 'step.started', { step: 'turn', index: turn, attempt: state.attempts });
    const tools = await ctx.tools(run.account_id);
    const answer = await ctx.call(run, `turn:${turn}`, turn, state.attempts > 1, {
      model: config.model,
      messages: state.messages,
      ...(tools.length > 0 ? { tools: tools.map((t) => toolDef(t, config.methods, auto.has(t))), tool_choice: 'auto' } : {}),
      optimizer: { run: { id: run.id, seq: turn, is_start: turn === 0 }, step: { id: `${run.agent_id ?? 'playground'}:turn` } },
    });
    if (answer === null) return;
    if (answer === 'metered') return ctx.finish(run.id, 'failed', { step: 'turn', index: turn, error: 'interrupted', message: `Turn ${turn} was answered and metered, but the gateway stopped before it kept the answer; it is not sent again, so it is not paid twice.` });
    if (!answer.ok) return ctx.finish(run.id, 'failed', { step: 'turn', index: turn, error: answer.body.code ?? 'error', message: answer.body.message ?? 'The turn failed.' });
    const message = (answer.body.choices?.[0]?.message ?? {}) as { content?: string | null; tool_calls?: ToolCall[] };
    const calls = message.tool_calls ?? [];
    state.turn = turn + 1;
    state.attempts = 0;
    const done = { step: 'turn', index: turn, call_id: answer.callId, model: answer.body.model ?? null };
    if (calls.length === 0) {
      state.output = String(message.content ?? '');
      const kept = await ctx.store.tx(async (em) => {
        if (await ctx.store.cancelled(run.id, em)) return false;
        await save(em);
        await ctx.store.append(run.id, 'step.completed', { ...done, output: state.output }, em);
        return true;
      });
      return kept ? ctx.finish(run.id, 'completed', { output: state.output }) : undefined;
    }
    state.messages.push({ role: 'assistant', content: message.content ?? null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.function?.name, arguments: c.function?.arguments ?? '' } })) });
    const autoRun: string[] = [];
    let waiting = 0;
    const kept = await ctx.store.tx(async (em) => {
      if (await ctx.store.cancelled(run.id, em)) return false; // cancelled during the turn: its calls are not proposed
      await ctx.store.append(run.id, 'step.completed', { ...done, tool_calls: calls.length }, em);
      state.pending = [];
      for (const c of calls) {
        const p = parseCall(c, tools, config.methods);
        if (typeof p === 'string') {
          // refused before it is an action: the model reads why at once
          state.messages!.push({ role: 'tool', tool_call_id: c.id, content: `error: ${p}` });
          await ctx.store.append(run.id, 'action.refused', { tool: c.function?.name ?? null, tool_call_id: c.id ?? null, message: p }, em);
          continue;
        }
        const name = c.function!.name!;
        const id = await ctx.store.addAction(run, name, p, em);
        state.pending.push({ action: id, tool_call_id: c.id ?? id });
        const approved = auto.has(name);
        if (approved) autoRun.push(id);
        else waiting += 1;
        await ctx.store.append(run.id, 'action.proposed', { action: id, connection: name, method: p.method, path: p.path, body: p.body ?? null, tool_call_id: c.id ?? null, auto_approved: approved }, em);
      }
      await save(em);
      if (waiting > 0) {
        await ctx.store.sql(`update managed_runs set status = 'waiting_approval', lease_until = null, updated_at = now() where id = ?`, [run.id], em);
        await ctx.store.append(run.id, 'run.waiting_approval', { actions: waiting }, em);
      }
      return true;
    });
    if (!kept) return;
    ctx.store.news.emit(run.id);
    for (const id of autoRun) await ctx.execute(run.account_id, run.id, id).catch(() => undefined); // a refusal is the action's result
    if (waiting > 0) return ctx.settle(run.id); // resumed by the last approval (or here, when it came first)
  }
}
