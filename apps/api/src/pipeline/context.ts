// Everything one completion carries through the pipeline's stages.
import type { ModelProfile, OptimizerAnnotation } from '@optimizer/schema';
import type { Principal } from '../tenancy/key-cache.ts';
import type { Claim } from './idempotency.ts';
import type { Usage } from './pricing.ts';

export interface Attempt {
  provider: string;
  model: string;
  profile: ModelProfile | undefined;
  startedAt: Date;
  latencyMs: number;
  status: number | null;
  outcome: 'ok' | 'error' | 'cancelled';
  usage: Usage;
}

export interface RouteDecision {
  model: string;
  provider: string;
  profile: ModelProfile | undefined;
  pinned: boolean;
  baselineModel: string;
  baselineProfile: ModelProfile | undefined;
  reasons: string[];
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
  providerKeyHeader: string | undefined;
  idempotencyKey: string | null;
  claim: Claim | null;
  route: RouteDecision | null;
  attempts: Attempt[];
  upstreamMs: number;
}

export interface Costs {
  baseline: number;
  served: number;
  actual: number;
  exploration: number;
  saving: number;
}
