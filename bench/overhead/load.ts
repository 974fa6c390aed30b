// The load generator: closed loop (fixed concurrency) and open loop (fixed arrival rate, latency
// from the scheduled send time), over undici pools with keep-alive connections.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { dueCount, latencyFromSchedule, scheduledAt } from './stats.ts';

/** Where requests go: an origin, a path and the headers that select and authorize the route. */
export interface Endpoint {
  origin: string;
  path: string;
  headers: Record<string, string>;
}

/** Raw samples of one run, in ms. */
export interface RunSamples {
  sent: number;
  ok: number;
  errors: Record<string, number>;
  /** Whole request: from send (closed loop) or from the scheduled time (open loop) to the last byte. */
  latency: number[];
  /** Streams only: to the first SSE `data:` chunk, measured like `latency`. */
  ttfb: number[];
  /** Open loop only: how late each request actually went out compared with its schedule. */
  sendLag: number[];
  /** From the first send to the last completion. */
  elapsedMs: number;
}

export interface Exchange {
  sentAt: number;
  firstDataAt: number;
  doneAt: number;
  error: string | undefined;
  /** The gateway's `x-optimizer-call-id` header, when it sent one. */
  callId?: string | undefined;
}

/** One request of a mixed load: its body, whether it streams, and headers beyond the endpoint's. */
export interface RequestSpec {
  body: string;
  stream: boolean;
  headers?: Record<string, string> | undefined;
}

const SYSTEM =
  'You are the support assistant of an online bookshop. Answer in two sentences at most, be polite, and quote the order number when the customer gives one.';
const USER =
  'Hello, I ordered two paperbacks last week and the tracking page has not changed for four days. Could you tell me whether the parcel is lost and what I should do next? The order number is';

/**
 * A realistic small request (system + ~200-character user message). `n` makes each body unique so no
 * proxy can answer from an exact-match cache; building it is one string concatenation.
 */
export function bodyMaker(model: string, stream: boolean): (n: number) => string {
  const head = `{"model":${JSON.stringify(model)},${stream ? '"stream":true,' : ''}"messages":[{"role":"system","content":${JSON.stringify(SYSTEM)}},{"role":"user","content":"${USER} `;
  const tail = '."}]}';
  return (n) => `${head}${100000 + n}${tail}`;
}

export interface PoolOptions {
  connections: number;
  timeoutMs: number;
}

export function makePool(endpoint: Endpoint, opts: PoolOptions): Pool {
  return new Pool(endpoint.origin, {
    connections: opts.connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    connectTimeout: 5_000,
  });
}

/** One request; never throws. Checks the status, that a JSON reply has choices, and that a stream ends with [DONE]. */
export async function exchange(pool: Pool, endpoint: Endpoint, body: string, stream: boolean, headers?: Record<string, string>): Promise<Exchange> {
  const sentAt = performance.now();
  let firstDataAt = Number.NaN;
  try {
    const res = await pool.request({
      path: endpoint.path,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...endpoint.headers, ...headers },
      body,
    });
    const id = res.headers['x-optimizer-call-id'];
    const callId = typeof id === 'string' ? id : undefined;
    if (res.statusCode !== 200) {
      await res.body.dump();
      return { sentAt, firstDataAt, doneAt: performance.now(), error: `http_${res.statusCode}`, callId };
    }
    if (!stream) {
      const text = await res.body.text();
      const doneAt = performance.now();
      return { sentAt, firstDataAt, doneAt, error: text.includes('"choices"') ? undefined : 'bad_json_reply', callId };
    }
    let tail = '';
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (Number.isNaN(firstDataAt) && chunk.includes('data:')) firstDataAt = performance.now();
      tail = (tail + chunk.toString('latin1')).slice(-64);
    }
    const doneAt = performance.now();
    const error = Number.isNaN(firstDataAt) ? 'stream_without_data' : tail.includes('[DONE]') ? undefined : 'stream_without_done';
    return { sentAt, firstDataAt, doneAt, error, callId };
  } catch (e) {
    const err = e as { code?: string; name?: string };
    return { sentAt, firstDataAt, doneAt: performance.now(), error: err.code ?? err.name ?? 'error' };
  }
}

function emptySamples(): RunSamples {
  return { sent: 0, ok: 0, errors: {}, latency: [], ttfb: [], sendLag: [], elapsedMs: 0 };
}

function countError(s: RunSamples, kind: string): void {
  s.errors[kind] = (s.errors[kind] ?? 0) + 1;
}

export interface ClosedLoopOptions {
  concurrency: number;
  durationMs: number;
  stream: boolean;
  model: string;
  /** Upper bound on requests, whatever the duration. */
  maxRequests: number;
  /** After the duration, in-flight requests get this long before the pool is destroyed. */
  drainMs: number;
  /** Numbers the bodies; different per run so bodies never repeat. */
  firstId: number;
}

/** Sends `n` requests at once, so the pool's connections exist before the clock starts; returns their errors. */
export async function prime(pool: Pool, endpoint: Endpoint, n: number, stream: boolean, model: string, firstId: number): Promise<string[]> {
  const make = bodyMaker(model, stream);
  const results = await Promise.all(Array.from({ length: n }, (_, i) => exchange(pool, endpoint, make(firstId + i), stream)));
  return results.map((r) => r.error).filter((e): e is string => e !== undefined);
}

/**
 * `concurrency` workers, each sending its next request as soon as the last one finished. The caller
 * owns `pool` (and destroys it); it is destroyed early only if requests outlive the drain time.
 */
export async function closedLoop(pool: Pool, endpoint: Endpoint, opts: ClosedLoopOptions): Promise<RunSamples> {
  const samples = emptySamples();
  const make = bodyMaker(opts.model, opts.stream);
  const start = performance.now();
  const stopAt = start + opts.durationMs;
  let lastDone = start;
  let abandoned = false;
  const worker = async (): Promise<void> => {
    while (!abandoned && performance.now() < stopAt && samples.sent < opts.maxRequests) {
      const id = opts.firstId + samples.sent++;
      const r = await exchange(pool, endpoint, make(id), opts.stream);
      lastDone = Math.max(lastDone, r.doneAt);
      if (r.error) {
        countError(samples, abandoned ? 'unfinished_at_deadline' : r.error);
        continue;
      }
      samples.ok++;
      samples.latency.push(r.doneAt - r.sentAt);
      if (opts.stream) samples.ttfb.push(r.firstDataAt - r.sentAt);
    }
  };
  await withDeadline(
    Promise.all(Array.from({ length: opts.concurrency }, worker)),
    opts.durationMs + opts.drainMs,
    () => {
      abandoned = true;
      return pool.destroy();
    },
  );
  samples.elapsedMs = lastDone - start;
  return samples;
}

export interface OpenLoopOptions {
  ratePerSec: number;
  durationMs: number;
  stream: boolean;
  model: string;
  /** Requests in flight beyond this are not sent and count as `dropped_overload` errors. */
  maxInFlight: number;
  drainMs: number;
  firstId: number;
  /** Builds request `index` (a mixed load); without it every request is `bodyMaker(model, stream)`. */
  request?: (index: number) => RequestSpec;
  /** Sees every finished request (e.g. to record the call ids the gateway acknowledged). */
  onExchange?: (index: number, spec: RequestSpec, result: Exchange) => void;
}

/**
 * Request i is due at start + i/rate whatever happened to earlier ones; latency runs from that due
 * time, so a stall shows up in every request it delayed (no coordinated omission).
 */
export async function openLoop(pool: Pool, endpoint: Endpoint, opts: OpenLoopOptions): Promise<RunSamples> {
  const total = Math.max(1, Math.round((opts.ratePerSec * opts.durationMs) / 1000));
  const samples = emptySamples();
  const make = bodyMaker(opts.model, opts.stream);
  const pending = new Set<Promise<void>>();
  const start = performance.now() + 5;
  let lastDone = start;
  let inFlight = 0;
  let abandoned = false;
  const fire = (index: number): void => {
    const due = scheduledAt(start, opts.ratePerSec, index);
    samples.sent++;
    if (inFlight >= opts.maxInFlight) {
      countError(samples, 'dropped_overload');
      return;
    }
    inFlight++;
    const spec: RequestSpec = opts.request ? opts.request(index) : { body: make(opts.firstId + index), stream: opts.stream };
    const p = exchange(pool, endpoint, spec.body, spec.stream, spec.headers).then((r) => {
      inFlight--;
      lastDone = Math.max(lastDone, r.doneAt);
      samples.sendLag.push(r.sentAt - due);
      opts.onExchange?.(index, spec, r);
      if (r.error) return countError(samples, abandoned ? 'unfinished_at_deadline' : r.error);
      samples.ok++;
      samples.latency.push(latencyFromSchedule(due, r.doneAt));
      if (spec.stream) samples.ttfb.push(latencyFromSchedule(due, r.firstDataAt));
    });
    pending.add(p);
    void p.then(() => pending.delete(p));
  };
  await new Promise<void>((resolve) => {
    let fired = 0;
    const tick = (): void => {
      const due = dueCount(start, opts.ratePerSec, performance.now(), total);
      while (fired < due) fire(fired++);
      if (fired >= total) return resolve();
      setTimeout(tick, Math.max(0, scheduledAt(start, opts.ratePerSec, fired) - performance.now()));
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });
  await withDeadline(Promise.all(pending), opts.drainMs, () => {
    abandoned = true;
    return pool.destroy();
  });
  samples.elapsedMs = lastDone - start;
  return samples;
}

/** Waits for `work` at most `ms`; on timeout runs `onTimeout` (which should make `work` settle) and waits for it. */
async function withDeadline(work: Promise<unknown>, ms: number, onTimeout: () => Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const finished = await Promise.race([work.then(() => true), timedOut]);
  clearTimeout(timer);
  if (!finished) {
    await onTimeout().catch(() => {});
    await Promise.race([work, new Promise((r) => setTimeout(r, 2000))]);
  }
  return finished;
}
