// What the pipeline's stages use of the gateway. The composition root (services.ts) builds one
// object that is all of it (`Services extends PipelineDeps`) and hands it in; the pipeline never
// imports the root, so the root can import the pipeline and nothing runs back up.
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Meter } from '../meter/meter.ts';
import type { Tracing } from '../telemetry/tracing.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { ProviderKeys } from '../tenancy/provider-keys.ts';
import type { Outbound } from '../providers/outbound.ts';
import type { CircuitBreaker } from '../providers/circuit-breaker.ts';
import type { Optimizer } from '../optimizer/optimizer.ts';
import type { RoutingSettings } from '../optimizer/settings.ts';
import type { Outcomes } from '../optimizer/outcomes.ts';
import type { StepRegistry } from '../optimizer/registry.ts';
import type { Discovery } from '../optimizer/discovery.ts';
import type { LatencyBoard } from '../optimizer/latency.ts';
import type { AnswerCache } from '../cache/answer-cache.ts';
import type { SemanticCache } from '../cache/semantic-cache.ts';
import type { WorkflowLife } from '../workflows/life.ts';
import type { TopicSettings } from '../settings/topic-settings.ts';
import type { GuardSettings } from '@optimizer/schema';
import type { Recordings } from '../capture/recordings.ts';
import type { Budget } from '../billing/budget.ts';
import type { RateLimits } from '../limits/rate-limits.ts';
import type { Idempotency } from './idempotency.ts';
import type { LearningQueue } from './learning-queue.ts';

export interface PipelineDeps {
  config: Config;
  logger: Logger;
  meter: Meter;
  /** OpenTelemetry spans per stage, or null when no OTLP endpoint is configured (then no tracer call is made). */
  tracing: Tracing | null;
  catalog: Catalog;
  providers: ProviderRegistry;
  providerKeys: ProviderKeys;
  outbound: Outbound;
  breaker: CircuitBreaker;
  optimizer: Optimizer;
  routingSettings: RoutingSettings;
  outcomes: Outcomes;
  steps: StepRegistry;
  discovery: Discovery;
  /** Observed latency per model (latency tiebreaks). */
  latency: LatencyBoard;
  answerCache: AnswerCache;
  semanticCache: SemanticCache;
  workflowLife: WorkflowLife;
  guardSettings: TopicSettings<GuardSettings>;
  /** Capture settings and recordings. */
  recordings: Recordings;
  budget: Budget;
  /** The tenants' rate limits (requests and tokens per minute) within the platform's ceiling. */
  rateLimits: RateLimits;
  idempotency: Idempotency;
  /** Routed calls' learning after their answers (probes, judge grades), off the request path. */
  learning: LearningQueue;
}
