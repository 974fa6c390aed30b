// What the load sends: plain unique JSON calls (the scale runs) or the soak's mix — JSON, streams,
// `model: "auto"` routed calls with a step annotation (each followed by an outcome), exact-cache
// repeats, and Idempotency-Key retries — spread round-robin over the agents' keys. It records every
// call id the gateway acknowledged, for the ledger check.
import { request as undiciRequest } from 'undici';
import { bodyMaker, type Exchange, type RequestSpec } from '../overhead/load.ts';
import type { Agent } from './tenant.ts';

export interface Traffic {
  request(index: number): RequestSpec;
  onExchange(index: number, spec: RequestSpec, r: Exchange): void;
  /** Call ids answered 200 (a replayed Idempotency-Key's id once). */
  acked: Set<string>;
  /** Problems beyond HTTP errors: replays answering another call's id, failed outcomes. */
  faults: Record<string, number>;
  /** Requests by kind, for the report. */
  kinds: Record<string, number>;
  /** Resolves when every outcome posted so far has been answered. */
  settled(): Promise<void>;
}

const MODEL = 'gpt-4o-mini';
const CACHED_BODIES = 16;
/** Repeats of one cached body sent by one agent before the next agent takes it over (the first on each agent may miss). */
const CACHED_STINT = 100;

function auth(a: Agent): Record<string, string> {
  return { authorization: `Bearer ${a.apiKey}` };
}

function countInto(m: Record<string, number>, k: string): void {
  m[k] = (m[k] ?? 0) + 1;
}

/** `firstId` keeps bodies unique across phases (no exact-cache hit unless the mix asks for one). */
export function plainTraffic(agents: Agent[], firstId: number): Traffic {
  const make = bodyMaker(MODEL, false);
  const acked = new Set<string>();
  return {
    request: (i) => ({ body: make(firstId + i), stream: false, headers: auth(agents[i % agents.length]!) }),
    onExchange: (_i, _s, r) => {
      if (!r.error && r.callId) acked.add(r.callId);
    },
    acked,
    faults: {},
    kinds: {},
    settled: async () => {},
  };
}

function routedBody(n: number, runId: string): string {
  return JSON.stringify({
    model: 'auto',
    optimizer: { run: { id: runId }, step: { id: 'triage', kind: 'classify' } },
    messages: [
      { role: 'system', content: 'Classify the customer message as billing, shipping or other. Answer with one word.' },
      { role: 'user', content: `My parcel ${n} has not arrived yet, where is it?` },
    ],
  });
}

/** The soak's mix, by index modulo 10: 4 JSON, 2 streams, 1 routed (+ outcome), 1 cached repeat, 1 keyed, 1 retry of an answered keyed call. */
export function mixedTraffic(agents: Agent[], firstId: number, origin: string): Traffic {
  const json = bodyMaker(MODEL, false);
  const stream = bodyMaker(MODEL, true);
  const cached = bodyMaker(MODEL, false);
  const acked = new Set<string>();
  const faults: Record<string, number> = {};
  const kinds: Record<string, number> = {};
  /** Keyed requests answered and not yet retried, oldest first: a retry follows its answer, as a client's would (a retry while the first is in flight answers 409). */
  const answered: RequestSpec[] = [];
  const keyedIds = new Map<string, string>();
  const outcomes = new Set<Promise<void>>();
  const agentOf = (i: number) => agents[i % agents.length]!;
  const postOutcome = (a: Agent, runId: string) => {
    const p = undiciRequest(`${origin}/v1/outcomes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(a) },
      body: JSON.stringify({ run_id: runId, step_id: 'triage', signals: { run_completed: true, score: 0.9 } }),
      headersTimeout: 30_000,
    })
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode !== 202) countInto(faults, `outcome_http_${res.statusCode}`);
      })
      .catch(() => countInto(faults, 'outcome_error'));
    outcomes.add(p);
    void p.then(() => outcomes.delete(p));
  };
  const build = (i: number): RequestSpec & { kind: string; runId?: string } => {
    const slot = i % 10;
    const n = firstId + i;
    if (slot < 4) return { kind: 'json', body: json(n), stream: false, headers: auth(agentOf(i)) };
    if (slot < 6) return { kind: 'stream', body: stream(n), stream: true, headers: auth(agentOf(i)) };
    if (slot === 6) {
      const runId = `soak-run-${n}`;
      return { kind: 'routed', runId, body: routedBody(n, runId), stream: false, headers: auth(agentOf(i)) };
    }
    if (slot === 7) {
      const k = (i / 10) % CACHED_BODIES | 0;
      // each body's repeats stay on one agent for CACHED_STINT of them, then move on, so that the
      // repeats spread over the tenant's agents as the rest of the mix does
      const stint = (i / (10 * CACHED_BODIES * CACHED_STINT)) | 0;
      return { kind: 'cached', body: cached(k), stream: false, headers: auth(agents[(k + CACHED_BODIES * stint) % agents.length]!) };
    }
    const original = slot === 9 ? answered.shift() : undefined;
    if (original) return { ...original, kind: 'retry' };
    return { kind: 'keyed', body: json(n), stream: false, headers: { ...auth(agentOf(i)), 'idempotency-key': `soak-${n}` } };
  };
  return {
    request: (i) => {
      const spec = build(i);
      countInto(kinds, spec.kind);
      return spec;
    },
    onExchange: (_i, spec, r) => {
      if (r.error || !r.callId) return;
      acked.add(r.callId);
      const s = spec as RequestSpec & { kind: string; runId?: string };
      const key = s.headers?.['idempotency-key'];
      if (key) {
        const first = keyedIds.get(key);
        if (first === undefined) {
          keyedIds.set(key, r.callId);
          answered.push(spec);
        } else if (first !== r.callId) countInto(faults, 'replay_with_new_call_id');
      }
      if (s.kind === 'routed' && s.runId) postOutcome(agents.find((a) => s.headers?.authorization === `Bearer ${a.apiKey}`)!, s.runId);
    },
    acked,
    faults,
    kinds,
    settled: async () => {
      await Promise.all([...outcomes]);
    },
  };
}
