// Everything one completion carries through the pipeline's stages.
import type { ModelProfile, OptimizerAnnotation } from '@optimizer/schema';
import type { Principal } from '../tenancy/key-cache.ts';
import type { Claim } from './idempotency.ts';
import type { Usage } from '../wire/usage.ts';
import { newId } from '../security/secrets.ts';
import type { CallEvent } from '../wire/events.ts';
import type { Vault } from '../guard/vault.ts';
import type { GuardFinding } from '../guard/guard.ts';

export interface Attempt {
  provider: string;
  model: string;
  profile: ModelProfile | undefined;
  startedAt: Date;
  latencyMs: number;
  status: number | null;
  outcome: 'ok' | 'error' | 'cancelled';
  usage: Usage;
  /** serve: on the path to the client's answer; probe/judge: exploration spend. */
  role: 'serve' | 'probe' | 'judge';
  /** Whose vendor key paid: the platform's (charged to the tenant) or the tenant's own (only the fee). */
  paidBy?: 'platform' | 'tenant';
}

export interface Candidate {
  model: string;
  provider: string;
  profile: ModelProfile | undefined;
}

export interface RouteDecision extends Candidate {
  /** The provider the client's request resolved to (a pinned call's bare x-provider-key is bound to it). */
  requestedProvider: string;
  pinned: boolean;
  baselineModel: string;
  baselineProfile: ModelProfile | undefined;
  reasons: string[];
  /** Equivalent-or-stronger models on other vendors, tried in order when the vendor fails. */
  failover: Candidate[];
}

export interface CallContext {
  id: string;
  receivedAt: Date;
  principal: Principal;
  /** The client's body minus `optimizer`: what the vendor receives. */
  body: Record<string, unknown>;
  requestedModel: string;
  annotation: OptimizerAnnotation | undefined;
  stream: boolean;
  clientWantsUsage: boolean;
  /** The bare `x-provider-key`, before route binds it to the pinned model's vendor (a routed call refuses it). */
  providerKeyHeader: string | undefined;
  /**
   * The client's own vendor keys for this call, by vendor: `x-provider-key-<vendor>` headers, and
   * the bare header once bound. A key is only ever sent to the vendor it is filed under.
   */
  clientKeys: Map<string, string>;
  /** The call's workflow is in production: it runs on the tenant's own provider keys only, never the platform's (spec 4.5). */
  production: boolean;
  /**
   * A model the catalog does not list, on the platform's key with no price for it: refused with
   * this (400 unknown_model) once the budget stage has checked the tenant's cap and allowance.
   */
  unpricedRefusal: import('../errors.ts').ApiError | null;
  idempotencyKey: string | null;
  claim: Claim | null;
  route: RouteDecision | null;
  attempts: Attempt[];
  /** Production events this call caused (failover), metered with it. */
  events: CallEvent[];
  /** The attempt whose answer the client receives. */
  served: Attempt | null;
  /** What the optimizer decided for a routed call (step, policy), for the record and outcomes. */
  /** The routed call's step and policy; `trial` when an unproven policy serves it to learn (learning by serving). */
  optimizer: { fingerprint: string; step: string; policy: string; settled: boolean; baseline: string; floor: number; trial?: { risk_budget_used: number } } | null;
  /** Served from a cache: which one, and what the answer cost when it was made (the saving). */
  cacheHit: { source: 'cache' | 'trace'; baselineMicros: number } | null;
  /** What the call was served despite (an `auto:<tier>` with no ladder): the `x-optimizer-warning` header, and in its reasons. */
  warnings?: string[];
  /** The cache stage's verdict for the response's headers (`x-optimizer-cache`: miss or hit, its kind, similarity). */
  cacheHeaders: Record<string, string>;
  /** Runs after a successful answer is metered, before it is sent (stores it in the caches). */
  afterAnswer: ((text: string, costs: Costs) => Promise<void>) | null;
  /** Input tokens pruning removed (estimated); the baseline is priced as if they were sent. */
  prunedTokens: number;
  /** The messages as the client sent them, when pruning changed them (exploration compares both). */
  unprunedMessages?: unknown[];
  /** What the call cost and would have cost, once metered. */
  priced: Costs | null;
  /** What the capture settings keep of this call (noted after the guard), or null for nothing. */
  capture: CaptureNote | null;
  /** Evidence rows this call produced, metered with it. */
  evidence: import('../meter/rows.ts').EvidenceRow[];
  /** What the guard stage redacted (the vault restores the answer) and found; null when the tenant's guard is off. */
  guard: { vault: Vault; findings: GuardFinding[] } | null;
  /** What the budget stage reserved for the call (billing/budget.ts); given back if the call is never metered. */
  reservation: import('../billing/budget.ts').Reservation | null;
  /** The share of the reservation set apart for what a routed call learns after its answer (learning-job.ts); null when it learns nothing. */
  learningReservation: import('../billing/budget.ts').Reservation | null;
  /** Settles the reservation to the priced call: the ledger legs to meter with it and the charge's parts for the record. */
  settle: ((costs: Costs) => { ledger: import('../meter/rows.ts').LedgerRow[]; billing: Record<string, number> }) | null;
}


/** What the capture settings keep of a call (capture-stage.ts). */
export interface CaptureNote {
  content: 'metadata' | 'full';
  redact: boolean;
  /** The body as the vendor sees it after the guard (stages after it build new objects, never edit this one). */
  request: Record<string, unknown>;
}

export interface Costs {
  baseline: number;
  served: number;
  actual: number;
  exploration: number;
  saving: number;
  /** The served model has no price (unlisted, on the tenant's own key): its costs read 0. */
  unpriced?: true;
}

/** `x-provider-key-<vendor>`: a key for that vendor only. */
const VENDOR_KEY_HEADER = /^x-provider-key-([a-z][a-z0-9-]{1,39})$/;

/** The client's per-vendor keys from a request's (lower-cased) headers. */
export function vendorKeyHeaders(headers: Record<string, unknown>): Map<string, string> {
  const keys = new Map<string, string>();
  for (const name in headers) {
    const m = VENDOR_KEY_HEADER.exec(name);
    const value = headers[name];
    if (m && typeof value === 'string' && value.length > 0) keys.set(m[1]!, value);
  }
  return keys;
}

/** A call's context as it enters the pipeline: who asked, and the provider key headers that came. */
export function newCallContext(principal: Principal, headers: Record<string, unknown> = {}): CallContext {
  const providerKeyHeader = headers['x-provider-key'];
  return {
    id: newId('call'),
    receivedAt: new Date(),
    principal,
    body: {},
    requestedModel: '',
    annotation: undefined,
    stream: false,
    clientWantsUsage: false,
    providerKeyHeader: typeof providerKeyHeader === 'string' && providerKeyHeader.length > 0 ? providerKeyHeader : undefined,
    clientKeys: vendorKeyHeaders(headers),
    production: false,
    unpricedRefusal: null,
    idempotencyKey: null,
    claim: null,
    route: null,
    attempts: [],
    events: [],
    served: null,
    optimizer: null,
    cacheHit: null,
    cacheHeaders: {},
    afterAnswer: null,
    prunedTokens: 0,
    priced: null,
    evidence: [],
    capture: null,
    reservation: null,
    learningReservation: null,
    settle: null,
    guard: null,
  };
}
