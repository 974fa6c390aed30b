/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type CacheSettingsInput = {
  exact?: boolean | null | undefined;
  semantic?: boolean | null | undefined;
  semanticErrorBound?: number | null | undefined;
  semanticThreshold?: number | null | undefined;
  ttlSeconds?: number | null | undefined;
};

export type Capability =
  | 'chat'
  | 'classification'
  | 'code'
  | 'extraction'
  | 'long_context'
  | 'math'
  | 'reasoning'
  | 'tool_use'
  | 'vision';

/** `none`: no recording; `metadata`: who, when, which model, sizes and status; `full`: the request after the guard and the stored response. */
export type CaptureContent =
  | 'full'
  | 'metadata'
  | 'none';

/** Merges into the capture settings, as PUT /v1/settings/capture does: a field left out keeps its value, null returns it to its default. */
export type CaptureSettingsInput = {
  content?: CaptureContent | null | undefined;
  redactPii?: boolean | null | undefined;
  retentionDays?: number | null | undefined;
};

export type DiscoveryState =
  | 'discovering'
  | 'optimized';

export type ExplorationBudgetInput = {
  dailyBudgetUsd?: number | null | undefined;
  stepBudgetUsd?: number | null | undefined;
  stepShare?: number | null | undefined;
};

/** `same_model`: a pinned model fails over only to the same model on another vendor; `any`: also to the catalog's equivalent models. */
export type FailoverScope =
  | 'any'
  | 'same_model';

/** Merges into the guard settings, as PUT /v1/settings/guard does: a field left out keeps its value, null returns it to its default. */
export type GuardSettingsInput = {
  injection?: InjectionPolicy | null | undefined;
  piiKinds?: Array<PiiKind> | null | undefined;
  redactPii?: boolean | null | undefined;
};

/** `allow`: not looked for; `flag`: recorded on the call; `block`: refused before any vendor call. */
export type InjectionPolicy =
  | 'allow'
  | 'block'
  | 'flag';

export type KeyRateLimitInput = {
  keyId: string;
  requestsPerMinute?: number | null | undefined;
  tokensPerMinute?: number | null | undefined;
};

export type LearningMode =
  | 'off'
  | 'serve'
  | 'shadow';

export type ManagedActionMethod =
  | 'GET'
  | 'POST';

export type ManagedActionStatus =
  | 'executed'
  | 'executing'
  | 'failed'
  | 'proposed';

/** `chain`: ordered LLM steps; `action`: proposes calls to a connection, each approved before it runs. */
export type ManagedAgentKind =
  | 'action'
  | 'chain';

export type ManagedRunStatus =
  | 'cancelled'
  | 'completed'
  | 'failed'
  | 'running'
  | 'waiting_approval';

export type Modality =
  | 'audio'
  | 'embedding'
  | 'image'
  | 'text'
  | 'video';

/** A full model profile. Left-out optional fields take the same defaults as on REST. */
export type ModelInput = {
  cacheWriteMultiplier: number;
  cachedInputPerMtok: number;
  contextLength: number;
  disabled?: boolean | null | undefined;
  failover?: Array<string> | null | undefined;
  inputModalities: Array<Modality>;
  inputPerMtok: number;
  maxOutputTokens: number;
  model: string;
  moderationOnly?: boolean | null | undefined;
  outputModalities: Array<Modality>;
  outputPerMtok: number;
  provider: string;
  reasoningEfforts: Array<ReasoningEffort>;
  searchOnly?: boolean | null | undefined;
  strengths?: Array<StrengthInput> | null | undefined;
  structuredOutputs: boolean;
  tools: ToolSupport;
  weights?: string | null | undefined;
};

export type PiiKind =
  | 'card'
  | 'email'
  | 'iban'
  | 'national_id'
  | 'phone'
  | 'secret';

export type ProviderInput = {
  /** Sealed at rest; left out, the stored key stays. */
  apiKey?: string | null | undefined;
  /** With the vendor version suffix, e.g. https://host/v1. */
  baseUrl: string;
  enabled?: boolean | null | undefined;
  wire?: WireFormat | null | undefined;
};

/** Merges into the rate limits, as PUT /v1/settings/limits does: a field left out keeps its value, null returns it to its default (no limit); keys, when sent, replace the list. */
export type RateLimitsInput = {
  keys?: Array<KeyRateLimitInput> | null | undefined;
  tenant?: RateWindowInput | null | undefined;
};

export type RateWindowInput = {
  requestsPerMinute?: number | null | undefined;
  tokensPerMinute?: number | null | undefined;
};

export type ReasoningEffort =
  | 'high'
  | 'low'
  | 'max'
  | 'medium'
  | 'minimal'
  | 'none';

export type RoutingMode =
  | 'auto'
  | 'off'
  | 'pinned';

/** Merges into the routing settings, as PUT /v1/settings/routing does: a field left out keeps its value, null returns it to its default. */
export type RoutingSettingsInput = {
  advancedSearch?: boolean | null | undefined;
  allowedProviders?: Array<string> | null | undefined;
  band?: number | null | undefined;
  baselineModel?: string | null | undefined;
  cache?: CacheSettingsInput | null | undefined;
  exploration?: ExplorationBudgetInput | null | undefined;
  failover?: FailoverScope | null | undefined;
  judgeModel?: string | null | undefined;
  /** Tier name → models, cheapest first. */
  ladders?: unknown;
  learningMode?: LearningMode | null | undefined;
  mode?: RoutingMode | null | undefined;
  qualityFloor?: number | null | undefined;
  tiebreak?: RoutingTiebreak | null | undefined;
};

export type RoutingTiebreak =
  | 'cost'
  | 'latency'
  | 'quality';

export type StrengthInput = {
  capability: Capability;
  score: number;
};

export type ToolSupport =
  | 'basic'
  | 'full'
  | 'none';

/** The API dialect a custom provider speaks. */
export type WireFormat =
  | 'anthropic'
  | 'gemini'
  | 'openai';

/** `ready` follows from the steps (every expected step settled); `production` needs a managed subscription. */
export type WorkflowStage =
  | 'production'
  | 'ready'
  | 'tuning';

export type ModelFieldsFragment = { model: string, provider: string, inputPerMtok: number, outputPerMtok: number, cachedInputPerMtok: number, cacheWriteMultiplier: number, inputModalities: Array<Modality>, outputModalities: Array<Modality>, tools: ToolSupport, structuredOutputs: boolean, reasoningEfforts: Array<ReasoningEffort>, contextLength: number, maxOutputTokens: number, searchOnly: boolean, moderationOnly: boolean, disabled: boolean, failover: Array<string>, weights: string | null, strengths: Array<{ capability: Capability, score: number }> };

export type ProviderFieldsFragment = { name: string, baseUrl: string, wire: string, enabled: boolean, keySet: boolean, builtIn: boolean };

export type CatalogQueryVariables = Exact<{ [key: string]: never; }>;


export type CatalogQuery = { catalog: Array<{ model: string, provider: string, inputPerMtok: number, outputPerMtok: number, cachedInputPerMtok: number, cacheWriteMultiplier: number, inputModalities: Array<Modality>, outputModalities: Array<Modality>, tools: ToolSupport, structuredOutputs: boolean, reasoningEfforts: Array<ReasoningEffort>, contextLength: number, maxOutputTokens: number, searchOnly: boolean, moderationOnly: boolean, disabled: boolean, failover: Array<string>, weights: string | null, strengths: Array<{ capability: Capability, score: number }> }> };

export type ProvidersQueryVariables = Exact<{ [key: string]: never; }>;


export type ProvidersQuery = { providers: Array<{ name: string, baseUrl: string, wire: string, enabled: boolean, keySet: boolean, builtIn: boolean }> };

export type PutModelMutationVariables = Exact<{
  input: ModelInput;
}>;


export type PutModelMutation = { putModel: { model: string, provider: string, inputPerMtok: number, outputPerMtok: number, cachedInputPerMtok: number, cacheWriteMultiplier: number, inputModalities: Array<Modality>, outputModalities: Array<Modality>, tools: ToolSupport, structuredOutputs: boolean, reasoningEfforts: Array<ReasoningEffort>, contextLength: number, maxOutputTokens: number, searchOnly: boolean, moderationOnly: boolean, disabled: boolean, failover: Array<string>, weights: string | null, strengths: Array<{ capability: Capability, score: number }> } };

export type SetModelDisabledMutationVariables = Exact<{
  model: string;
  disabled: boolean;
}>;


export type SetModelDisabledMutation = { setModelDisabled: { model: string, provider: string, inputPerMtok: number, outputPerMtok: number, cachedInputPerMtok: number, cacheWriteMultiplier: number, inputModalities: Array<Modality>, outputModalities: Array<Modality>, tools: ToolSupport, structuredOutputs: boolean, reasoningEfforts: Array<ReasoningEffort>, contextLength: number, maxOutputTokens: number, searchOnly: boolean, moderationOnly: boolean, disabled: boolean, failover: Array<string>, weights: string | null, strengths: Array<{ capability: Capability, score: number }> } };

export type RemoveModelMutationVariables = Exact<{
  model: string;
}>;


export type RemoveModelMutation = { removeModel: boolean };

export type PutProviderMutationVariables = Exact<{
  name: string;
  input: ProviderInput;
}>;


export type PutProviderMutation = { putProvider: { name: string, baseUrl: string, wire: string, enabled: boolean, keySet: boolean, builtIn: boolean } };

export type RemoveProviderMutationVariables = Exact<{
  name: string;
}>;


export type RemoveProviderMutation = { removeProvider: boolean };

export type TestProviderMutationVariables = Exact<{
  name: string;
}>;


export type TestProviderMutation = { testProvider: { provider: string, ok: boolean, status: number | null, latencyMs: number, error: string | null } };

export type OverviewQueryVariables = Exact<{
  days?: number | null | undefined;
}>;


export type OverviewQuery = { savings: { calls: number, baselineCost: number, actualCost: number, saving: number, bySource: { cache: number, routing: number, ttc: number, trace: number } }, savingsSeries: { bucketSeconds: number, points: Array<{ at: string, calls: number, baselineCost: number, actualCost: number, saving: number, bySource: { cache: number, routing: number, ttc: number, trace: number } }> }, workflows: Array<{ id: string, name: string, stage: WorkflowStage, stepsExpected: number, stepsSettled: number, ready: boolean }> };

export type CallRowFragment = { id: string, createdAt: string, agent: string, step: string | null, fingerprint: string | null, run: string | null, model: string, routedModel: string | null, provider: string | null, status: number, errorCode: string | null, saving: number, savingSource: string | null, reasons: Array<string>, latencyMs: number, overheadMs: number, grades: Array<unknown>, cache: { hit: boolean }, cost: { baseline: number, served: number, actual: number, exploration: number }, usage: { promptTokens: number, completionTokens: number, cachedTokens: number, reasoningTokens: number, estimated: boolean }, policy: { key: string, settled: boolean, baselineModel: string, qualityBar: number } | null, why: Array<{ kind: string, summary: string, policy: string | null, bound: number | null, bar: number | null, samples: number | null, others: Array<string> }>, guardrailFindings: Array<{ type: string, kind: string, count: number, action: string }> };

export type CallListQueryVariables = Exact<{
  limit?: number | null | undefined;
  startingAfter?: string | null | undefined;
  step?: string | null | undefined;
  model?: string | null | undefined;
  cache?: string | null | undefined;
  outcome?: string | null | undefined;
  from?: string | null | undefined;
  to?: string | null | undefined;
}>;


export type CallListQuery = { calls: Array<{ id: string, createdAt: string, agent: string, step: string | null, fingerprint: string | null, run: string | null, model: string, routedModel: string | null, provider: string | null, status: number, errorCode: string | null, saving: number, savingSource: string | null, reasons: Array<string>, latencyMs: number, overheadMs: number, grades: Array<unknown>, cache: { hit: boolean }, cost: { baseline: number, served: number, actual: number, exploration: number }, usage: { promptTokens: number, completionTokens: number, cachedTokens: number, reasoningTokens: number, estimated: boolean }, policy: { key: string, settled: boolean, baselineModel: string, qualityBar: number } | null, why: Array<{ kind: string, summary: string, policy: string | null, bound: number | null, bar: number | null, samples: number | null, others: Array<string> }>, guardrailFindings: Array<{ type: string, kind: string, count: number, action: string }> }> };

export type CallDetailQueryVariables = Exact<{
  id: string;
}>;


export type CallDetailQuery = { call: { id: string, createdAt: string, agent: string, step: string | null, fingerprint: string | null, run: string | null, model: string, routedModel: string | null, provider: string | null, status: number, errorCode: string | null, saving: number, savingSource: string | null, reasons: Array<string>, latencyMs: number, overheadMs: number, grades: Array<unknown>, attempts: Array<{ attempt: number, role: string, vendor: string, model: string, status: number | null, outcome: string, latencyMs: number, promptTokens: number, completionTokens: number, cost: number, error: string | null }> | null, cache: { hit: boolean }, cost: { baseline: number, served: number, actual: number, exploration: number }, usage: { promptTokens: number, completionTokens: number, cachedTokens: number, reasoningTokens: number, estimated: boolean }, policy: { key: string, settled: boolean, baselineModel: string, qualityBar: number } | null, why: Array<{ kind: string, summary: string, policy: string | null, bound: number | null, bar: number | null, samples: number | null, others: Array<string> }>, guardrailFindings: Array<{ type: string, kind: string, count: number, action: string }> } };

export type BreakdownQueryVariables = Exact<{
  days?: number | null | undefined;
}>;


export type BreakdownQuery = { breakdown: { days: number, bucketSeconds: number, totals: { calls: number, baselineCost: number, actualCost: number, explorationCost: number, saving: number }, bySource: Array<{ source: string, calls: number, baselineCost: number, actualCost: number, explorationCost: number, saving: number }>, byStep: Array<{ agent: string, agentName: string, step: string | null, fingerprint: string | null, calls: number, baselineCost: number, actualCost: number, explorationCost: number, saving: number }>, traffic: Array<{ at: string, calls: number, explorationCost: number, byModel: Array<{ model: string, calls: number, actualCost: number }> }> } };

export type WorkflowDetailQueryVariables = Exact<{
  id: string;
}>;


export type WorkflowDetailQuery = { workflows: Array<{ id: string, name: string }>, workflowStage: { id: string, stage: WorkflowStage }, steps: Array<{ fingerprint: string, label: string, calls: number, expected: boolean, settled: boolean, excluded: boolean, chosen: string | null, probes: number, served: number, candidates: unknown, exploration: unknown }>, events: Array<{ id: string, kind: string, at: string, from: string | null, to: string | null, reason: string | null }>, discovery: { enabled: boolean, state: DiscoveryState, steps: Array<{ label: string, settled: boolean }> } };

export type LockfileDownloadQueryVariables = Exact<{
  id: string;
}>;


export type LockfileDownloadQuery = { lockfile: { lockfileVersion: number, workflowId: string, reportVersion: number, finalizedAt: string, qualityFloor: number, steps: Array<{ fingerprint: string, label: string, policy: string | null, model: string | null, reasoningEffort: string | null, cache: { exact: boolean, semantic: boolean }, evidence: { n: number, retention: number, lcb: number, costShare: number } | null }> } };

export type FinalizeReportMutationVariables = Exact<{
  id: string;
}>;


export type FinalizeReportMutation = { finalizeReport: { version: number | null } };

export type RoutingSettingsFormQueryVariables = Exact<{ [key: string]: never; }>;


export type RoutingSettingsFormQuery = { routingSettings: { mode: RoutingMode | null, allowedProviders: Array<string> | null, tiebreak: RoutingTiebreak | null, ladders: unknown, band: number | null, learningMode: LearningMode | null, advancedSearch: boolean | null, baselineModel: string | null, judgeModel: string | null, qualityFloor: number | null, exploration: { stepShare: number | null, stepBudgetUsd: number | null, dailyBudgetUsd: number | null } | null, cache: { exact: boolean | null, semantic: boolean | null, ttlSeconds: number | null, semanticThreshold: number | null } | null } };

export type SaveRoutingMutationVariables = Exact<{
  input: RoutingSettingsInput;
}>;


export type SaveRoutingMutation = { setRoutingSettings: { qualityFloor: number | null, baselineModel: string | null, judgeModel: string | null, allowedProviders: Array<string> | null } };

export type WorkflowRecordingsQueryVariables = Exact<{
  id: string;
  limit?: number | null | undefined;
  cursor?: string | null | undefined;
  step?: string | null | undefined;
}>;


export type WorkflowRecordingsQuery = { recordings: { nextCursor: string | null, data: Array<{ id: string, createdAt: string, content: string, redacted: boolean, requestedModel: string, servedModel: string | null, status: number, errorCode: string | null, request: unknown, response: unknown, step: { fingerprint: string, label: string } | null, usage: { promptTokens: number, completionTokens: number } }> } };

export type BillingOverviewQueryVariables = Exact<{
  from?: string | null | undefined;
  yearFrom?: string | null | undefined;
}>;


export type BillingOverviewQuery = { billing: { balances: { walletUsd: number, devAllowanceUsd: number }, prices: { feeRate: number, platformKeys: string, ownKeys: string }, autoTopup: { thresholdUsd: number, amountUsd: number, paymentMethodSaved: boolean } | null, subscriptions: Array<{ workflowId: string, status: string, currentPeriodEnd: string, cancelAtPeriodEnd: boolean }>, ledger: Array<{ id: string, book: string, kind: string, amountUsd: number, createdAt: string }> }, statements: Array<{ period: string, closed: boolean, feeRate: number, calls: number, feesUsd: number, usageUsd: number, amountDueUsd: number, savings: { total: number } }>, rateLimits: { tenant: { requestsPerMinute: number | null, tokensPerMinute: number | null }, keys: Array<{ keyId: string, requestsPerMinute: number | null, tokensPerMinute: number | null }>, ceiling: { requestsPerMinute: number | null, tokensPerMinute: number | null } }, savingsLedger: { data: Array<{ period: string, feeUsd: number, netSavingUsd: number, savings: { cache: number, routing: number, total: number } }>, totals: { savingUsd: number, feeUsd: number, netSavingUsd: number } } };

export type RateLimitFieldsFragment = { tenant: { requestsPerMinute: number | null, tokensPerMinute: number | null }, keys: Array<{ keyId: string, requestsPerMinute: number | null, tokensPerMinute: number | null }>, ceiling: { requestsPerMinute: number | null, tokensPerMinute: number | null } };

export type SetAutoTopupMutationVariables = Exact<{
  thresholdUsd?: number | null | undefined;
  amountUsd?: number | null | undefined;
}>;


export type SetAutoTopupMutation = { setAutoTopup: { thresholdUsd: number | null, amountUsd: number | null } };

export type SetRateLimitsMutationVariables = Exact<{
  input: RateLimitsInput;
}>;


export type SetRateLimitsMutation = { setRateLimits: { tenant: { requestsPerMinute: number | null, tokensPerMinute: number | null }, keys: Array<{ keyId: string, requestsPerMinute: number | null, tokensPerMinute: number | null }>, ceiling: { requestsPerMinute: number | null, tokensPerMinute: number | null } } };

export type TopupMutationVariables = Exact<{
  amountUsd: number;
}>;


export type TopupMutation = { createTopup: { url: string, checkoutId: string } };

export type ProtectionSettingsQueryVariables = Exact<{ [key: string]: never; }>;


export type ProtectionSettingsQuery = { captureSettings: { content: CaptureContent, retentionDays: number, redactPii: boolean }, guardSettings: { redactPii: boolean, piiKinds: Array<PiiKind>, injection: InjectionPolicy }, alertSettings: { spendCapUsd: number | null, spendThresholds: Array<number>, emailTo: Array<string>, events: Array<string>, webhooks: Array<{ id: string, url: string, enabled: boolean }> } };

export type SaveCaptureMutationVariables = Exact<{
  input: CaptureSettingsInput;
}>;


export type SaveCaptureMutation = { setCaptureSettings: { content: CaptureContent, retentionDays: number, redactPii: boolean } };

export type SaveGuardMutationVariables = Exact<{
  input: GuardSettingsInput;
}>;


export type SaveGuardMutation = { setGuardSettings: { redactPii: boolean, piiKinds: Array<PiiKind>, injection: InjectionPolicy } };

export type ManagedAgentsQueryVariables = Exact<{ [key: string]: never; }>;


export type ManagedAgentsQuery = { managedAgents: Array<{ id: string, name: string, kind: ManagedAgentKind, createdAt: string | null, runs: Array<{ id: string, status: ManagedRunStatus, input: string, error: string | null, createdAt: string }> }> };

export type StartManagedRunMutationVariables = Exact<{
  id: string;
  input?: string | null | undefined;
}>;


export type StartManagedRunMutation = { startManagedRun: { id: string, status: ManagedRunStatus } };

export type ManagedRunQueryVariables = Exact<{
  id: string;
}>;


export type ManagedRunQuery = { managedRun: { id: string, agent: string | null, kind: ManagedAgentKind, status: ManagedRunStatus, input: string, output: string | null, error: string | null, eventsUrl: string, createdAt: string | null, steps: Array<{ name: string, output: string }>, actions: Array<{ id: string, connection: string, method: ManagedActionMethod, path: string, body: unknown, status: ManagedActionStatus, error: string | null, response: { status: number, body: string | null } | null }> } };

export type ExecuteManagedActionMutationVariables = Exact<{
  id: string;
  action: string;
}>;


export type ExecuteManagedActionMutation = { executeManagedAction: { replayed: boolean, action: { id: string, status: ManagedActionStatus } } };

export type CancelManagedRunMutationVariables = Exact<{
  id: string;
}>;


export type CancelManagedRunMutation = { cancelManagedRun: { id: string, status: ManagedRunStatus } };

export type ManagedAgentScheduleQueryVariables = Exact<{
  id: string;
}>;


export type ManagedAgentScheduleQuery = { managedAgentSchedule: { cron: string, input: string, catchUpS: number, nextAt: string, lastFiredAt: string | null, lastTick: string | null, lastRun: string | null } };

export type ScheduleManagedAgentMutationVariables = Exact<{
  id: string;
  cron: string;
  input?: string | null | undefined;
  catchUpS?: number | null | undefined;
}>;


export type ScheduleManagedAgentMutation = { scheduleManagedAgent: { cron: string, nextAt: string } };

export type UnscheduleManagedAgentMutationVariables = Exact<{
  id: string;
}>;


export type UnscheduleManagedAgentMutation = { unscheduleManagedAgent: { deleted: boolean } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const ModelFieldsFragmentDoc = new TypedDocumentString(`
    fragment ModelFields on Model {
  model
  provider
  inputPerMtok
  outputPerMtok
  cachedInputPerMtok
  cacheWriteMultiplier
  inputModalities
  outputModalities
  tools
  structuredOutputs
  reasoningEfforts
  contextLength
  maxOutputTokens
  searchOnly
  moderationOnly
  strengths {
    capability
    score
  }
  disabled
  failover
  weights
}
    `, {"fragmentName":"ModelFields"}) as unknown as TypedDocumentString<ModelFieldsFragment, unknown>;
export const ProviderFieldsFragmentDoc = new TypedDocumentString(`
    fragment ProviderFields on Provider {
  name
  baseUrl
  wire
  enabled
  keySet
  builtIn
}
    `, {"fragmentName":"ProviderFields"}) as unknown as TypedDocumentString<ProviderFieldsFragment, unknown>;
export const CallRowFragmentDoc = new TypedDocumentString(`
    fragment CallRow on Call {
  id
  createdAt
  agent
  step
  fingerprint
  run
  model
  routedModel
  provider
  status
  errorCode
  saving
  savingSource
  reasons
  latencyMs
  overheadMs
  cache {
    hit
  }
  cost {
    baseline
    served
    actual
    exploration
  }
  usage {
    promptTokens
    completionTokens
    cachedTokens
    reasoningTokens
    estimated
  }
  policy {
    key
    settled
    baselineModel
    qualityBar
  }
  why {
    kind
    summary
    policy
    bound
    bar
    samples
    others
  }
  grades
  guardrailFindings {
    type
    kind
    count
    action
  }
}
    `, {"fragmentName":"CallRow"}) as unknown as TypedDocumentString<CallRowFragment, unknown>;
export const RateLimitFieldsFragmentDoc = new TypedDocumentString(`
    fragment RateLimitFields on RateLimits {
  tenant {
    requestsPerMinute
    tokensPerMinute
  }
  keys {
    keyId
    requestsPerMinute
    tokensPerMinute
  }
  ceiling {
    requestsPerMinute
    tokensPerMinute
  }
}
    `, {"fragmentName":"RateLimitFields"}) as unknown as TypedDocumentString<RateLimitFieldsFragment, unknown>;
export const CatalogDocument = new TypedDocumentString(`
    query Catalog {
  catalog {
    ...ModelFields
  }
}
    fragment ModelFields on Model {
  model
  provider
  inputPerMtok
  outputPerMtok
  cachedInputPerMtok
  cacheWriteMultiplier
  inputModalities
  outputModalities
  tools
  structuredOutputs
  reasoningEfforts
  contextLength
  maxOutputTokens
  searchOnly
  moderationOnly
  strengths {
    capability
    score
  }
  disabled
  failover
  weights
}`) as unknown as TypedDocumentString<CatalogQuery, CatalogQueryVariables>;
export const ProvidersDocument = new TypedDocumentString(`
    query Providers {
  providers {
    ...ProviderFields
  }
}
    fragment ProviderFields on Provider {
  name
  baseUrl
  wire
  enabled
  keySet
  builtIn
}`) as unknown as TypedDocumentString<ProvidersQuery, ProvidersQueryVariables>;
export const PutModelDocument = new TypedDocumentString(`
    mutation PutModel($input: ModelInput!) {
  putModel(input: $input) {
    ...ModelFields
  }
}
    fragment ModelFields on Model {
  model
  provider
  inputPerMtok
  outputPerMtok
  cachedInputPerMtok
  cacheWriteMultiplier
  inputModalities
  outputModalities
  tools
  structuredOutputs
  reasoningEfforts
  contextLength
  maxOutputTokens
  searchOnly
  moderationOnly
  strengths {
    capability
    score
  }
  disabled
  failover
  weights
}`) as unknown as TypedDocumentString<PutModelMutation, PutModelMutationVariables>;
export const SetModelDisabledDocument = new TypedDocumentString(`
    mutation SetModelDisabled($model: String!, $disabled: Boolean!) {
  setModelDisabled(model: $model, disabled: $disabled) {
    ...ModelFields
  }
}
    fragment ModelFields on Model {
  model
  provider
  inputPerMtok
  outputPerMtok
  cachedInputPerMtok
  cacheWriteMultiplier
  inputModalities
  outputModalities
  tools
  structuredOutputs
  reasoningEfforts
  contextLength
  maxOutputTokens
  searchOnly
  moderationOnly
  strengths {
    capability
    score
  }
  disabled
  failover
  weights
}`) as unknown as TypedDocumentString<SetModelDisabledMutation, SetModelDisabledMutationVariables>;
export const RemoveModelDocument = new TypedDocumentString(`
    mutation RemoveModel($model: String!) {
  removeModel(model: $model)
}
    `) as unknown as TypedDocumentString<RemoveModelMutation, RemoveModelMutationVariables>;
export const PutProviderDocument = new TypedDocumentString(`
    mutation PutProvider($name: String!, $input: ProviderInput!) {
  putProvider(name: $name, input: $input) {
    ...ProviderFields
  }
}
    fragment ProviderFields on Provider {
  name
  baseUrl
  wire
  enabled
  keySet
  builtIn
}`) as unknown as TypedDocumentString<PutProviderMutation, PutProviderMutationVariables>;
export const RemoveProviderDocument = new TypedDocumentString(`
    mutation RemoveProvider($name: String!) {
  removeProvider(name: $name)
}
    `) as unknown as TypedDocumentString<RemoveProviderMutation, RemoveProviderMutationVariables>;
export const TestProviderDocument = new TypedDocumentString(`
    mutation TestProvider($name: String!) {
  testProvider(name: $name) {
    provider
    ok
    status
    latencyMs
    error
  }
}
    `) as unknown as TypedDocumentString<TestProviderMutation, TestProviderMutationVariables>;
export const OverviewDocument = new TypedDocumentString(`
    query Overview($days: Int) {
  savings {
    calls
    baselineCost
    actualCost
    saving
    bySource {
      cache
      routing
      ttc
      trace
    }
  }
  savingsSeries(days: $days) {
    bucketSeconds
    points {
      at
      calls
      baselineCost
      actualCost
      saving
      bySource {
        cache
        routing
        ttc
        trace
      }
    }
  }
  workflows {
    id
    name
    stage
    stepsExpected
    stepsSettled
    ready
  }
}
    `) as unknown as TypedDocumentString<OverviewQuery, OverviewQueryVariables>;
export const CallListDocument = new TypedDocumentString(`
    query CallList($limit: Int, $startingAfter: String, $step: String, $model: String, $cache: String, $outcome: String, $from: String, $to: String) {
  calls(
    limit: $limit
    startingAfter: $startingAfter
    step: $step
    model: $model
    cache: $cache
    outcome: $outcome
    from: $from
    to: $to
  ) {
    ...CallRow
  }
}
    fragment CallRow on Call {
  id
  createdAt
  agent
  step
  fingerprint
  run
  model
  routedModel
  provider
  status
  errorCode
  saving
  savingSource
  reasons
  latencyMs
  overheadMs
  cache {
    hit
  }
  cost {
    baseline
    served
    actual
    exploration
  }
  usage {
    promptTokens
    completionTokens
    cachedTokens
    reasoningTokens
    estimated
  }
  policy {
    key
    settled
    baselineModel
    qualityBar
  }
  why {
    kind
    summary
    policy
    bound
    bar
    samples
    others
  }
  grades
  guardrailFindings {
    type
    kind
    count
    action
  }
}`) as unknown as TypedDocumentString<CallListQuery, CallListQueryVariables>;
export const CallDetailDocument = new TypedDocumentString(`
    query CallDetail($id: String!) {
  call(id: $id) {
    ...CallRow
    attempts {
      attempt
      role
      vendor
      model
      status
      outcome
      latencyMs
      promptTokens
      completionTokens
      cost
      error
    }
  }
}
    fragment CallRow on Call {
  id
  createdAt
  agent
  step
  fingerprint
  run
  model
  routedModel
  provider
  status
  errorCode
  saving
  savingSource
  reasons
  latencyMs
  overheadMs
  cache {
    hit
  }
  cost {
    baseline
    served
    actual
    exploration
  }
  usage {
    promptTokens
    completionTokens
    cachedTokens
    reasoningTokens
    estimated
  }
  policy {
    key
    settled
    baselineModel
    qualityBar
  }
  why {
    kind
    summary
    policy
    bound
    bar
    samples
    others
  }
  grades
  guardrailFindings {
    type
    kind
    count
    action
  }
}`) as unknown as TypedDocumentString<CallDetailQuery, CallDetailQueryVariables>;
export const BreakdownDocument = new TypedDocumentString(`
    query Breakdown($days: Int) {
  breakdown(days: $days) {
    days
    totals {
      calls
      baselineCost
      actualCost
      explorationCost
      saving
    }
    bySource {
      source
      calls
      baselineCost
      actualCost
      explorationCost
      saving
    }
    byStep {
      agent
      agentName
      step
      fingerprint
      calls
      baselineCost
      actualCost
      explorationCost
      saving
    }
    bucketSeconds
    traffic {
      at
      calls
      explorationCost
      byModel {
        model
        calls
        actualCost
      }
    }
  }
}
    `) as unknown as TypedDocumentString<BreakdownQuery, BreakdownQueryVariables>;
export const WorkflowDetailDocument = new TypedDocumentString(`
    query WorkflowDetail($id: String!) {
  workflows {
    id
    name
  }
  workflowStage(id: $id) {
    id
    stage
  }
  steps(id: $id) {
    fingerprint
    label
    calls
    expected
    settled
    excluded
    chosen
    probes
    served
    candidates
    exploration
  }
  events(id: $id, days: 30) {
    id
    kind
    at
    from
    to
    reason
  }
  discovery(id: $id) {
    enabled
    state
    steps {
      label
      settled
    }
  }
}
    `) as unknown as TypedDocumentString<WorkflowDetailQuery, WorkflowDetailQueryVariables>;
export const LockfileDownloadDocument = new TypedDocumentString(`
    query LockfileDownload($id: String!) {
  lockfile(id: $id) {
    lockfileVersion
    workflowId
    reportVersion
    finalizedAt
    qualityFloor
    steps {
      fingerprint
      label
      policy
      model
      reasoningEffort
      cache {
        exact
        semantic
      }
      evidence {
        n
        retention
        lcb
        costShare
      }
    }
  }
}
    `) as unknown as TypedDocumentString<LockfileDownloadQuery, LockfileDownloadQueryVariables>;
export const FinalizeReportDocument = new TypedDocumentString(`
    mutation FinalizeReport($id: String!) {
  finalizeReport(id: $id) {
    version
  }
}
    `) as unknown as TypedDocumentString<FinalizeReportMutation, FinalizeReportMutationVariables>;
export const RoutingSettingsFormDocument = new TypedDocumentString(`
    query RoutingSettingsForm {
  routingSettings {
    mode
    allowedProviders
    tiebreak
    ladders
    band
    learningMode
    advancedSearch
    baselineModel
    judgeModel
    qualityFloor
    exploration {
      stepShare
      stepBudgetUsd
      dailyBudgetUsd
    }
    cache {
      exact
      semantic
      ttlSeconds
      semanticThreshold
    }
  }
}
    `) as unknown as TypedDocumentString<RoutingSettingsFormQuery, RoutingSettingsFormQueryVariables>;
export const SaveRoutingDocument = new TypedDocumentString(`
    mutation SaveRouting($input: RoutingSettingsInput!) {
  setRoutingSettings(input: $input) {
    qualityFloor
    baselineModel
    judgeModel
    allowedProviders
  }
}
    `) as unknown as TypedDocumentString<SaveRoutingMutation, SaveRoutingMutationVariables>;
export const WorkflowRecordingsDocument = new TypedDocumentString(`
    query WorkflowRecordings($id: String!, $limit: Int, $cursor: String, $step: String) {
  recordings(id: $id, limit: $limit, cursor: $cursor, step: $step) {
    data {
      id
      createdAt
      step {
        fingerprint
        label
      }
      content
      redacted
      requestedModel
      servedModel
      status
      errorCode
      usage {
        promptTokens
        completionTokens
      }
      request
      response
    }
    nextCursor
  }
}
    `) as unknown as TypedDocumentString<WorkflowRecordingsQuery, WorkflowRecordingsQueryVariables>;
export const BillingOverviewDocument = new TypedDocumentString(`
    query BillingOverview($from: String, $yearFrom: String) {
  billing {
    balances {
      walletUsd
      devAllowanceUsd
    }
    prices {
      feeRate
      platformKeys
      ownKeys
    }
    autoTopup {
      thresholdUsd
      amountUsd
      paymentMethodSaved
    }
    subscriptions {
      workflowId
      status
      currentPeriodEnd
      cancelAtPeriodEnd
    }
    ledger {
      id
      book
      kind
      amountUsd
      createdAt
    }
  }
  statements(from: $from) {
    period
    closed
    feeRate
    calls
    savings {
      total
    }
    feesUsd
    usageUsd
    amountDueUsd
  }
  rateLimits {
    ...RateLimitFields
  }
  savingsLedger(from: $yearFrom) {
    data {
      period
      savings {
        cache
        routing
        total
      }
      feeUsd
      netSavingUsd
    }
    totals {
      savingUsd
      feeUsd
      netSavingUsd
    }
  }
}
    fragment RateLimitFields on RateLimits {
  tenant {
    requestsPerMinute
    tokensPerMinute
  }
  keys {
    keyId
    requestsPerMinute
    tokensPerMinute
  }
  ceiling {
    requestsPerMinute
    tokensPerMinute
  }
}`) as unknown as TypedDocumentString<BillingOverviewQuery, BillingOverviewQueryVariables>;
export const SetAutoTopupDocument = new TypedDocumentString(`
    mutation SetAutoTopup($thresholdUsd: Float, $amountUsd: Float) {
  setAutoTopup(thresholdUsd: $thresholdUsd, amountUsd: $amountUsd) {
    thresholdUsd
    amountUsd
  }
}
    `) as unknown as TypedDocumentString<SetAutoTopupMutation, SetAutoTopupMutationVariables>;
export const SetRateLimitsDocument = new TypedDocumentString(`
    mutation SetRateLimits($input: RateLimitsInput!) {
  setRateLimits(input: $input) {
    ...RateLimitFields
  }
}
    fragment RateLimitFields on RateLimits {
  tenant {
    requestsPerMinute
    tokensPerMinute
  }
  keys {
    keyId
    requestsPerMinute
    tokensPerMinute
  }
  ceiling {
    requestsPerMinute
    tokensPerMinute
  }
}`) as unknown as TypedDocumentString<SetRateLimitsMutation, SetRateLimitsMutationVariables>;
export const TopupDocument = new TypedDocumentString(`
    mutation Topup($amountUsd: Float!) {
  createTopup(amountUsd: $amountUsd) {
    url
    checkoutId
  }
}
    `) as unknown as TypedDocumentString<TopupMutation, TopupMutationVariables>;
export const ProtectionSettingsDocument = new TypedDocumentString(`
    query ProtectionSettings {
  captureSettings {
    content
    retentionDays
    redactPii
  }
  guardSettings {
    redactPii
    piiKinds
    injection
  }
  alertSettings {
    spendCapUsd
    spendThresholds
    emailTo
    events
    webhooks {
      id
      url
      enabled
    }
  }
}
    `) as unknown as TypedDocumentString<ProtectionSettingsQuery, ProtectionSettingsQueryVariables>;
export const SaveCaptureDocument = new TypedDocumentString(`
    mutation SaveCapture($input: CaptureSettingsInput!) {
  setCaptureSettings(input: $input) {
    content
    retentionDays
    redactPii
  }
}
    `) as unknown as TypedDocumentString<SaveCaptureMutation, SaveCaptureMutationVariables>;
export const SaveGuardDocument = new TypedDocumentString(`
    mutation SaveGuard($input: GuardSettingsInput!) {
  setGuardSettings(input: $input) {
    redactPii
    piiKinds
    injection
  }
}
    `) as unknown as TypedDocumentString<SaveGuardMutation, SaveGuardMutationVariables>;
export const ManagedAgentsDocument = new TypedDocumentString(`
    query ManagedAgents {
  managedAgents {
    id
    name
    kind
    createdAt
    runs {
      id
      status
      input
      error
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<ManagedAgentsQuery, ManagedAgentsQueryVariables>;
export const StartManagedRunDocument = new TypedDocumentString(`
    mutation StartManagedRun($id: String!, $input: String) {
  startManagedRun(id: $id, input: $input) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<StartManagedRunMutation, StartManagedRunMutationVariables>;
export const ManagedRunDocument = new TypedDocumentString(`
    query ManagedRun($id: String!) {
  managedRun(id: $id) {
    id
    agent
    kind
    status
    input
    output
    error
    steps {
      name
      output
    }
    actions {
      id
      connection
      method
      path
      body
      status
      response {
        status
        body
      }
      error
    }
    eventsUrl
    createdAt
  }
}
    `) as unknown as TypedDocumentString<ManagedRunQuery, ManagedRunQueryVariables>;
export const ExecuteManagedActionDocument = new TypedDocumentString(`
    mutation ExecuteManagedAction($id: String!, $action: String!) {
  executeManagedAction(id: $id, action: $action) {
    replayed
    action {
      id
      status
    }
  }
}
    `) as unknown as TypedDocumentString<ExecuteManagedActionMutation, ExecuteManagedActionMutationVariables>;
export const CancelManagedRunDocument = new TypedDocumentString(`
    mutation CancelManagedRun($id: String!) {
  cancelManagedRun(id: $id) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<CancelManagedRunMutation, CancelManagedRunMutationVariables>;
export const ManagedAgentScheduleDocument = new TypedDocumentString(`
    query ManagedAgentSchedule($id: String!) {
  managedAgentSchedule(id: $id) {
    cron
    input
    catchUpS
    nextAt
    lastFiredAt
    lastTick
    lastRun
  }
}
    `) as unknown as TypedDocumentString<ManagedAgentScheduleQuery, ManagedAgentScheduleQueryVariables>;
export const ScheduleManagedAgentDocument = new TypedDocumentString(`
    mutation ScheduleManagedAgent($id: String!, $cron: String!, $input: String, $catchUpS: Int) {
  scheduleManagedAgent(id: $id, cron: $cron, input: $input, catchUpS: $catchUpS) {
    cron
    nextAt
  }
}
    `) as unknown as TypedDocumentString<ScheduleManagedAgentMutation, ScheduleManagedAgentMutationVariables>;
export const UnscheduleManagedAgentDocument = new TypedDocumentString(`
    mutation UnscheduleManagedAgent($id: String!) {
  unscheduleManagedAgent(id: $id) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<UnscheduleManagedAgentMutation, UnscheduleManagedAgentMutationVariables>;