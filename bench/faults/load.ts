// The load that runs while a fault hits: an open loop of chat completions through the balancer,
// sent with the official `openai` SDK (no retries: every failure is counted), spread over the
// tenant's agents. Each request's outcome is kept: when it started and ended, the gateway's call
// id and the replica that served it (`x-served-by`), and for a stream whether `data: [DONE]`
// arrived. A call is acknowledged when the client got a 200 and, for a stream, its [DONE].
import OpenAI from 'openai';
import type { Agent } from '../scale/tenant.ts';

export type Kind = 'json' | 'stream' | 'keyed' | 'client-cut' | 'vendor-cut';

export const MODEL = 'gpt-4o-mini';

export interface Outcome {
  i: number;
  kind: Kind;
  agent: number;
  startedAt: number;
  endedAt: number;
  /** Acknowledged: a 200 and, for a stream, its [DONE]. */
  ok: boolean;
  status: number | undefined;
  error: string | undefined;
  callId: string | undefined;
  server: string | undefined;
  /** A stream's `data: [DONE]` arrived. */
  done: boolean;
  key?: string;
  body?: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
}

export interface LoadOptions {
  ratePerSec: number;
  /** Kinds in turn: request i is mix[i % mix.length]. */
  mix: Kind[];
  timeoutMs: number;
  /** Keeps bodies and keys unique across runs. */
  firstId: number;
  maxInFlight?: number;
}

const SYSTEM = 'You are the support assistant of an online bookshop. Answer in two sentences at most.';

function messages(n: number): OpenAI.Chat.ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `My order ${n} has not arrived after four days. Is the parcel lost, and what should I do?` },
  ];
}

/** A fetch that notes whether an event stream's body carried `data: [DONE]`. */
function doneTrackingFetch(seen: { done: boolean }): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
    const decoder = new TextDecoder();
    let tail = '';
    const watch = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        tail = (tail + decoder.decode(chunk, { stream: true })).slice(-256);
        if (/(^|\n)data: \[DONE\]/.test(tail)) seen.done = true;
        ctl.enqueue(chunk);
      },
    });
    return new Response(res.body.pipeThrough(watch), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

function client(origin: string, apiKey: string, timeoutMs: number, seen: { done: boolean }): OpenAI {
  return new OpenAI({ baseURL: `${origin}/v1`, apiKey, maxRetries: 0, timeout: timeoutMs, fetch: doneTrackingFetch(seen) });
}

function describeError(e: unknown): { status: number | undefined; error: string; headers: Headers | undefined } {
  if (e instanceof OpenAI.APIError) {
    const code = (e.error as { code?: string } | undefined)?.code ?? e.code ?? undefined;
    return { status: e.status, error: e.status ? `http_${e.status}${code ? `_${code}` : ''}` : `stream_${code ?? 'error'}`, headers: e.headers };
  }
  const err = e as Error;
  return { status: undefined, error: err.name === 'APIConnectionTimeoutError' ? 'timeout' : `transport_${(err.cause as { code?: string } | undefined)?.code ?? err.name}`, headers: undefined };
}

/** One request of `kind`; never throws. */
export async function send(
  origin: string,
  agent: Agent,
  agentIndex: number,
  kind: Kind,
  i: number,
  n: number,
  timeoutMs: number,
  extra: { key?: string; body?: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming; onStart?: (o: Outcome) => void } = {},
): Promise<Outcome> {
  const seen = { done: false };
  const ai = client(origin, agent.apiKey, timeoutMs, seen);
  // filled in as the answer arrives (server and call id with the headers), so a live request can be watched
  const o: Outcome = { i, kind, agent: agentIndex, startedAt: Date.now(), endedAt: 0, ok: false, status: undefined, error: undefined, callId: undefined, server: undefined, done: false };
  extra.onStart?.(o);
  try {
    if (kind === 'json' || kind === 'keyed') {
      const key = extra.key ?? (kind === 'keyed' ? `faults-${n}` : undefined);
      const body = extra.body ?? { model: MODEL, messages: messages(n) };
      if (key) {
        o.key = key;
        o.body = body;
      }
      const { data, response } = await ai.chat.completions.create(body, key ? { headers: { 'Idempotency-Key': key } } : {}).withResponse();
      o.status = response.status;
      o.callId = response.headers.get('x-optimizer-call-id') ?? undefined;
      o.server = response.headers.get('x-served-by') ?? undefined;
      o.ok = response.status === 200 && !!o.callId && data.choices.length > 0;
      if (response.headers.get('idempotent-replayed') === 'true') o.error = 'replayed';
    } else {
      const model = kind === 'vendor-cut' ? 'reset-mid-stream' : MODEL;
      const { data: stream, response } = await ai.chat.completions.create({ model, messages: messages(n), stream: true }).withResponse();
      o.status = response.status;
      o.callId = response.headers.get('x-optimizer-call-id') ?? undefined;
      o.server = response.headers.get('x-served-by') ?? undefined;
      let chunks = 0;
      for await (const _chunk of stream) {
        chunks++;
        if (kind === 'client-cut' && chunks === 2) {
          stream.controller.abort();
          break;
        }
      }
      o.done = seen.done;
      if (kind === 'client-cut') o.error = 'cut_by_client';
      else if (!seen.done) o.error = 'stream_without_done';
      o.ok = kind === 'stream' && seen.done && !!o.callId && response.status === 200;
    }
  } catch (e) {
    const d = describeError(e);
    o.status ??= d.status;
    o.error = d.error;
    o.server ??= d.headers?.get('x-served-by') ?? undefined;
    o.callId ??= d.headers?.get('x-optimizer-call-id') ?? undefined;
    o.done = seen.done;
  }
  o.endedAt = Date.now();
  return o;
}

/** An open loop: request i goes out at start + i/rate whatever happened before. */
export class Load {
  readonly outcomes: Outcome[] = [];
  /** Requests under way (their outcome filled in as the answer arrives). */
  readonly live = new Set<Outcome>();
  readonly #origin: string;
  readonly #agents: Agent[];
  readonly #o: LoadOptions;
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #sent = 0;
  dropped = 0;

  constructor(origin: string, agents: Agent[], o: LoadOptions) {
    this.#origin = origin;
    this.#agents = agents;
    this.#o = o;
  }

  get sent(): number {
    return this.#sent;
  }

  start(): void {
    const start = Date.now();
    const tick = () => {
      const due = Math.floor(((Date.now() - start) * this.#o.ratePerSec) / 1000) + 1;
      while (this.#sent < due) this.#launch(this.#sent++);
    };
    tick();
    this.#timer = setInterval(tick, Math.max(5, Math.floor(1000 / this.#o.ratePerSec / 2)));
  }

  #launch(i: number): void {
    if (this.#inFlight.size >= (this.#o.maxInFlight ?? 500)) {
      this.dropped++;
      return;
    }
    const kind = this.#o.mix[i % this.#o.mix.length]!;
    const a = i % this.#agents.length;
    let live: Outcome | undefined;
    const p = send(this.#origin, this.#agents[a]!, a, kind, i, this.#o.firstId + i, this.#o.timeoutMs, { onStart: (o) => this.live.add((live = o)) }).then((o) => {
      this.live.delete(live!);
      this.outcomes.push(o);
    });
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
  }

  /** Stops sending and waits for every request in flight. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all([...this.#inFlight]);
  }

  /** Call ids acknowledged to the client. */
  acked(): Set<string> {
    return new Set(this.outcomes.filter((o) => o.ok && o.callId).map((o) => o.callId!));
  }

  /** Requests of the ordinary kinds (not the deliberate cuts) started in [from, to) that were not acknowledged. */
  failures(from = 0, to = Number.POSITIVE_INFINITY): Outcome[] {
    return this.outcomes.filter((o) => !o.ok && o.kind !== 'client-cut' && o.kind !== 'vendor-cut' && o.startedAt >= from && o.startedAt < to);
  }

  /** Failures by error, for the report. */
  static tally(outcomes: Outcome[]): Record<string, number> {
    const t: Record<string, number> = {};
    for (const o of outcomes) t[o.error ?? 'ok'] = (t[o.error ?? 'ok'] ?? 0) + 1;
    return t;
  }
}
