// The OpenAPI 3.1 document of the gateway's REST door, built from the code itself: every
// request body, query and path parameter is the zod schema the route parses (z.toJSONSchema),
// error responses are the error catalogue's codes grouped by status, and the operation list
// below is compared with Fastify's registered routes by a test (apps/api/test/openapi.test.ts),
// so a route added without an entry here fails it. Response bodies come from zod where the
// wire has a schema; the domain views (TypeScript types) are written here as the fields they
// always carry, and the same test validates live answers against them. `node scripts/openapi.ts` writes the
// result to docs/openapi.json; the gateway serves it at GET /v1/openapi.json.
//
// What is in it: the OpenAI-compatible data plane, the tenant control plane, signup, login
// and logout, the platform admin API (it lives on the same server under /v1/admin), the
// Stripe webhook, and the health and metrics routes. What is not, and why, is the test's
// allow-list: GraphQL and tRPC describe themselves (SDL, AppRouter) and the web app's pages
// are not an API.
import { z } from 'zod';
import {
  activityQuery,
  adminCreditRequest,
  agentKeyRef,
  alertSettings,
  alertSettingsPatch,
  callRef,
  callsQuery,
  captureSettings,
  captureSettingsPatch,
  completionRequest,
  connectionRef,
  createManagedAgentRequest,
  createAgentInput,
  createWebhookRequest,
  disabledWriteSchema,
  catalogAliasWriteSchema,
  unknownModelPriceSchema,
  discoveryInput,
  estimateRequest,
  eventsInput,
  guardSettings,
  guardSettingsPatch,
  rateLimitSettingsPatch,
  loginRequest,
  managedActionRef,
  managedAgentRef,
  managedRunRef,
  modelProfileSchema,
  optimizerBlock,
  outcomeRequest,
  playgroundRequest,
  providerNameSchema,
  providerRef,
  providerWriteSchema,
  putConnectionInput,
  putProviderKeyInput,
  recordingRef,
  recordingsInput,
  reportInput,
  routingSettingsPatch,
  routingSettingsView,
  savingsSeriesQuery,
  signupRequest,
  stageInput,
  startRunInput,
  statementsQuery,
  stepCallsInput,
  stepPatchInput,
  topupRequest,
  autoTopupRequest,
  webhookRef,
  workflowRef,
} from '@optimizer/schema';
import { modelProfileDefaults } from '../admin/catalog.ts';
import { meterQuarantineQuery, meterQuarantineRef } from '../routes/admin-meter.ts';
import { LEDGER_ENTRIES_SHOWN } from '../billing/view.ts';
import { signupConfirmRequest } from '../routes/signup.ts';
import { signupSettingsSchema, signupSettingsWrite } from '../tenancy/signup-settings.ts';
import { errorCatalogue, type ErrorCode } from '../errors.ts';
import { embeddingsBodySchema } from '../pipeline/embeddings.ts';
import { responsesRequestSchema } from '../wire/responses-request.ts';

export const OPENAPI_PATH = '/v1/openapi.json';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as a plain object. */
type JsonSchema = Record<string, unknown>;

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call: `tenant` a tenant's bearer key only (the data plane), `control` a bearer key
 * or the dashboard's session cookie (writes by cookie pass the CSRF check), `admin` the
 * admin key, `stripe` Stripe's signature header, `none` anyone.
 */
type Auth = 'none' | 'tenant' | 'control' | 'admin' | 'stripe';

type Tag = 'Gateway' | 'Calls and savings' | 'Workflows' | 'Agents' | 'Settings' | 'Alerts' | 'Managed agents' | 'Billing' | 'Discovery' | 'Accounts' | 'Admin' | 'Operations';

const tags: Record<Tag, string> = {
  Gateway: 'The OpenAI-compatible data plane: completions, embeddings, outcomes and the model list (spec 4.1).',
  'Calls and savings': 'Per-call detail, the raw metered timeline and the savings totals (spec 4.1).',
  Workflows: 'Workflows, their steps, reports, lockfile, stage, events, recordings and subscriptions (spec 4.2, 4.4).',
  Agents: 'Proxy agents, their keys and their call graph (spec 4.3).',
  Settings: 'Routing, capture, guard and stored provider keys (spec 4.5).',
  Alerts: 'Where alerts go, the spend cap and the webhook endpoints (spec 4.5, 6).',
  'Managed agents': 'Connections to external sites (secrets never returned) and the agents the platform runs: chain and action kinds, runs, their event streams and proposed actions (spec 4.5, 6.3, 7.3).',
  Billing: 'Wallet, top-up, statements and the estimate (spec 4.4).',
  Discovery: 'Discovery mode of a proxy agent (spec 4.6).',
  Accounts: 'Signup and the dashboard session (spec 5).',
  Admin: 'The platform admin API: catalog, providers and support credit (spec 4.7). Admin key only.',
  Operations: 'Liveness, readiness, Prometheus metrics and this document.',
};

interface Success {
  status: number;
  description: string;
  /** A zod schema (its output side is documented) or a JSON Schema; absent: no body (204) or a described body. */
  schema?: z.ZodType | JsonSchema;
  /** `text` for text/plain, `stream` adds text/event-stream beside JSON, `events` text/event-stream alone, `none` for an empty body. */
  content?: 'json' | 'text' | 'stream' | 'events' | 'none';
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/** Another answer than the success one with its own body (e.g. /readyz's 503). */
interface Alternative {
  status: number;
  description: string;
  schema: JsonSchema;
}

interface Operation {
  method: Method;
  /** As Fastify registers it: `:name` segments are path parameters. */
  path: string;
  tag: Tag;
  summary: string;
  description?: string;
  auth: Auth;
  /**
   * The zod schema the handler parses and where from: path parameters are taken out by
   * name (as http/rest-input.ts merges them in), what is left is the query or the body.
   * `params` alone: a schema of the path parameters only.
   */
  input?: { schema: z.ZodType; from: 'query' | 'body' | 'params'; bodyError?: 'validation_failed' | 'invalid_request' };
  /** Header parameters the route reads. */
  headers?: { name: string; description: string; schema: JsonSchema; required?: boolean }[];
  ok: Success;
  also?: Alternative[];
  /** Errors beyond what the auth, the input and the server add on their own. */
  errors?: ErrorCode[];
}

/** A zod schema as JSON Schema; `io: 'input'` for what a client sends (defaults make fields optional). */
function json(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  return out;
}

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Record<string, JsonSchema>, required = Object.keys(properties)): JsonSchema => ({ type: 'object', properties, required });
const str: JsonSchema = { type: 'string' };
/** `{ data: [...] }`, the list shape of the control plane. */
const list = (item: JsonSchema): JsonSchema => obj({ data: { type: 'array', items: item } });
/** A view whose fields are a domain type, not a wire schema: named, not spelled out. */
const view = (description: string): JsonSchema => ({ type: 'object', description, additionalProperties: true });

const num: JsonSchema = { type: 'number' };
const int: JsonSchema = { type: 'integer' };
const bool: JsonSchema = { type: 'boolean' };
const time: JsonSchema = { type: 'string', format: 'date-time' };
const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: 'null' }] });
/** An object with at least these fields (a view may grow fields; a client must not break on them). */
const open = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({ ...obj(properties), ...(description ? { description } : {}), additionalProperties: true });
const stage: JsonSchema = { type: 'string', enum: ['tuning', 'ready', 'production'] };
const usdBySource = open({ cache: num, routing: num, ttc: num, trace: num });
const rateWindowView = obj({ requests_per_minute: nullable(int), tokens_per_minute: nullable(int) });
const rateLimitsView = obj({ tenant: rateWindowView, keys: { type: 'array', items: obj({ key_id: str, requests_per_minute: nullable(int), tokens_per_minute: nullable(int) }) }, ceiling: rateWindowView });

const callFields = {
  id: str,
  created_at: time,
  agent: str,
  model: str,
  routed_model: nullable(str),
  provider: nullable(str),
  stream: bool,
  status: int,
  error_code: nullable(str),
  usage: open({ prompt_tokens: int, completion_tokens: int, cached_tokens: int, reasoning_tokens: int, estimated: bool }),
  cost: open({ baseline: num, served: num, actual: num, exploration: num }, 'USD.'),
  saving: num,
  saving_source: nullable(str),
  charge: nullable(open({ usage: num, fee: num }, 'What billing charged, USD.')),
  cache: open({ hit: bool }),
  reasons: { type: 'array', items: str },
  grades: { type: 'array', items: view('A judge or validation grade.') },
  guardrail_findings: { type: 'array', items: view('A guard finding (PII kind, injection pattern).') },
  latency_ms: num,
  overhead_ms: num,
  vendor_status: nullable(int),
};
const callView = open(callFields, 'One metered call: what was asked, what served it, what it cost and saved, and why.');
const activityView = open(
  { id: str, call_id: str, agent: str, at: time, attempt: int, provider: str, model: str, status: nullable(int), outcome: str, latency_ms: num, prompt_tokens: int, completion_tokens: int, cost: num },
  'One vendor attempt as metered.',
);
const savingsTotals = { calls: int, baseline_cost: num, actual_cost: num, saving: num };
const stepRefView = open({ fingerprint: str, label: str });
const recordingView = open(
  {
    id: str,
    call_id: str,
    workflow_id: str,
    created_at: time,
    step: nullable(stepRefView),
    content: { type: 'string', enum: ['metadata', 'full'] },
    redacted: bool,
    requested_model: str,
    served_model: nullable(str),
    status: int,
    error_code: nullable(str),
    usage: open({ prompt_tokens: int, completion_tokens: int }),
    request: nullable({ type: 'object', description: 'The request as the vendor saw it (after the guard); null for metadata.' }),
    response: nullable({ type: 'object', description: 'The stored chat.completion minus the optimizer block; null for metadata or a failed call.' }),
    meta: open({ messages: int, roles: { type: 'array', items: str } }),
  },
  'A recording of one call (capture settings decide how much).',
);
const reportStepView = open(
  {
    fingerprint: str,
    label: str,
    expected: bool,
    settled: bool,
    calls: int,
    policy: nullable(str),
    model: nullable(str),
    reasoning_effort: nullable(str),
    cache: open({ exact: bool, semantic: bool }),
    pruning: open({ enabled: bool, n: int, retention: num, lcb: num }),
    evidence: nullable(open({ n: int, retention: num, lcb: num, cost_share: num })),
    exploration: open({ spent_usd: num, share_of_baseline: num }),
  },
  'A step of the report.',
);
const stepView = open(
  { fingerprint: str, label: str, first_seen: time, last_seen: time, calls: int, excluded: bool, expected: bool, settled: bool, chosen: nullable(str) },
  'A step of the registry: when it was seen, whether it is expected and settled, the policy chosen, its exploration and cache state.',
);
const agentView = open({ id: str, name: str, discovery_enabled: bool, created_at: time, calls: int, baseline_cost: num, actual_cost: num, saving: num }, 'An agent (workflow) with its call totals and savings (USD).');
const keyView = open({ id: str, hint: str, created_at: time, revoked: bool }, 'A key by its id and hint, never the key.');
const workflowView = open({ id: str, name: str, stage, steps_expected: int, steps_settled: int, ready: bool });
const stageView = open({ id: str, stage });
const reportView = open(
  {
    workflow_id: str,
    quality_floor: num,
    settled: bool,
    steps: { type: 'array', items: reportStepView },
    stage,
    version: nullable(int),
    finalized_at: nullable(time),
    newest_version: nullable(int),
    versions: { type: 'array', items: int },
  },
  'A report: live (version null) or a stored version.',
);
const providerView = open({ name: str, base_url: str, wire: str, enabled: bool, key_set: bool, built_in: bool }, 'A provider: its base URL and wire, whether a key is set (never the key).');
const subscriptionFields = { workflow_id: str, status: { type: 'string', enum: ['active', 'cancelled', 'lapsed'] }, started_at: time, current_period_end: time, cancel_at_period_end: bool };
const subscription = open(subscriptionFields, "A workflow's subscription to managed Production.");
const subscriptionView = open({ ...subscriptionFields, price_usd: num }, "A workflow's subscription to managed Production and its price.");
const webhookFields = { id: str, url: { type: 'string', format: 'uri' }, enabled: bool, disabled_reason: nullable(str), created_at: time };
const webhookView = open(webhookFields, 'A webhook endpoint (never its secret).');
const connectionView = open({ name: str, base_url: str, secret_set: bool, created_at: time, updated_at: time }, 'A connection; its secret is never returned.');
const managedAgentView = open({ id: str, name: str, kind: { type: 'string', enum: ['chain', 'action'] }, config: view('The job config, as validated.'), created_at: time }, 'A managed agent.');
const managedActionFields = {
  id: str,
  connection: str,
  method: { type: 'string', enum: ['GET', 'POST'] },
  path: str,
  body: {},
  status: { type: 'string', enum: ['proposed', 'executing', 'executed', 'failed'] },
  response: nullable(open({ status: int, body: str })),
  error: nullable(str),
  executed_at: nullable(time),
};
const managedRunView = open(
  {
    id: str,
    agent: nullable(str),
    kind: { type: 'string', enum: ['chain', 'action'] },
    status: { type: 'string', enum: ['running', 'waiting_approval', 'completed', 'failed'] },
    input: str,
    output: nullable(str),
    steps: { type: 'array', items: open({ name: str, output: str }) },
    error: nullable(str),
    actions: { type: 'array', items: open(managedActionFields) },
    events_url: str,
    created_at: time,
    updated_at: time,
  },
  'A managed run: its status, the output of each finished step and the actions it proposed.',
);
const managedRunSummary = open(
  {
    id: str,
    agent: nullable(str),
    kind: { type: 'string', enum: ['chain', 'action'] },
    status: { type: 'string', enum: ['running', 'waiting_approval', 'completed', 'failed'] },
    input: str,
    error: nullable(str),
    created_at: time,
    updated_at: time,
  },
  'A managed run in a list: read the run itself for its steps and actions.',
);
const webhookWithSecret = open({ ...webhookFields, secret: str }, 'A webhook endpoint with its signing secret, shown in this answer only.');
const discoveryCredit = open({ granted_usd: num, used_usd: num, remaining_usd: num });
const catalogAliasView = obj({ alias: str, model: str });
const unknownModelPriceView = obj({ unknown_model_price: nullable(json(unknownModelPriceSchema, 'output')) });

const idempotencyKey = {
  name: 'Idempotency-Key',
  description: 'At most 255 characters, scoped to the tenant. A retry with the same key and body replays the first answer (with `Idempotent-Replayed: true`) without a second dispatch or meter; another body is a 422, a retry while the first is in flight a 409.',
  schema: { type: 'string', maxLength: 255 },
};
const providerKey = {
  name: 'x-provider-key',
  description:
    "The vendor's key for this call, bound to the pinned model's vendor and sent nowhere else (a failover to another vendor uses that vendor's stored or platform key). Refused on a routed model (`auto`): send `x-provider-key-<vendor>` (e.g. `x-provider-key-openai`), one header per vendor, instead; routing then chooses only among vendors it holds a key for. Omit it to use the key stored under /v1/settings/provider-keys, or the platform's key (billed to the wallet). On your own key a model the catalog does not list is served unpriced (`optimizer.unpriced: true`).",
  schema: str,
};
const noStore = { 'Cache-Control': { description: '`no-store`: the answer holds a secret shown only once.', schema: str } };

const modelProfilePut = modelProfileSchema.partial(Object.fromEntries([...Object.keys(modelProfileDefaults), 'model'].map((k) => [k, true])) as { model: true });

/** The path parameter of the provider routes, checked as admin/providers.ts checks it. */
const providerByName = z.object({ name: providerNameSchema }).strict();

const upstream: ErrorCode[] = [
  'no_provider_key',
  'provider_unavailable',
  'unknown_model',
  'upstream_auth',
  'upstream_bad_request',
  'upstream_not_found',
  'upstream_rate_limited',
  'rate_limited',
  'upstream_error',
  'upstream_invalid',
  'upstream_timeout',
];

/** An entry of the meter's quarantine (meter/quarantine.ts). */
const quarantinedRow = obj({
  id: str,
  kind: { enum: ['calls', 'activity', 'events', 'evidence', 'outcomes', 'recordings', 'ledger'] },
  table: nullable(str),
  account_id: nullable(str),
  sqlstate: nullable(str),
  reason: str,
  source: { enum: ['flush', 'replay'] },
  status: { enum: ['quarantined', 'replayed', 'discarded'] },
  created_at: time,
  resolved_at: nullable(time),
  row: { description: 'The row as the meter had it: its JSON, parsed (the text when it does not parse).' },
});

const readiness = obj({ status: { enum: ['ready', 'not_ready'] }, checks: { type: 'object', additionalProperties: { enum: ['ok', 'down'] } } });

/** Every route the REST door serves, in the order app.ts registers them. */
export const operations: Operation[] = [
  // health.ts
  { method: 'get', path: '/healthz', tag: 'Operations', summary: 'Liveness: the process answers', auth: 'none', ok: { status: 200, description: 'Alive.', schema: obj({ status: { const: 'ok' } }) } },
  {
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    summary: 'Readiness: the database (and Redis, when configured) answer, and the metering file takes writes',
    description: 'Status 503 with the same body when a dependency is down; which one, never its error.',
    auth: 'none',
    ok: { status: 200, description: 'Every dependency answered.', schema: readiness },
    also: [{ status: 503, description: 'A dependency did not answer in time: `not_ready`, and which one.', schema: readiness }],
  },
  { method: 'get', path: '/metrics', tag: 'Operations', summary: 'Prometheus metrics', auth: 'none', ok: { status: 200, description: 'The Prometheus text exposition format.', content: 'text' } },
  { method: 'get', path: OPENAPI_PATH, tag: 'Operations', summary: 'This document', auth: 'none', ok: { status: 200, description: 'The OpenAPI 3.1 document of the REST API.', schema: { type: 'object' } } },
  // signup.ts, session.ts
  {
    method: 'post',
    path: '/v1/signup',
    tag: 'Accounts',
    summary: 'Create an account and its first workflow',
    description:
      'The tenant key (`api_key`) is in this answer only. The new account is promised the dev allowance the admin set (GET /v1/admin/settings/signup); `email_confirmation: pending` says it is granted once the link emailed to the address is used (POST /v1/signup/confirm). Limited per client address (DOOR_SIGNUP_PER_HOUR): past it, 429 with Retry-After.',
    auth: 'none',
    input: { schema: signupRequest, from: 'body' },
    ok: {
      status: 201,
      description: 'The account, its workflow and its first key.',
      schema: obj({ account_id: str, workflow_id: str, api_key: { type: 'string', pattern: '^sk-opt-' }, email_confirmation: { enum: ['pending', 'not_required'] } }),
      headers: noStore,
    },
    errors: ['conflict', 'rate_limited'],
  },
  {
    method: 'get',
    path: '/v1/signup/confirm',
    tag: 'Accounts',
    summary: "Confirm a new account's email (the emailed link)",
    description: 'Grants the dev allowance the account was promised at signup, once; a second use answers the same. Limited per client address.',
    auth: 'none',
    input: { schema: signupConfirmRequest, from: 'query' },
    ok: { status: 200, description: 'Confirmed.', schema: obj({ account_id: str, confirmed: { const: true }, dev_allowance_usd: num }), headers: noStore },
    errors: ['not_found', 'rate_limited'],
  },
  {
    method: 'post',
    path: '/v1/signup/confirm',
    tag: 'Accounts',
    summary: "Confirm a new account's email (the emailed token)",
    description: 'As the link does, with the token in the body.',
    auth: 'none',
    input: { schema: signupConfirmRequest, from: 'body' },
    ok: { status: 200, description: 'Confirmed.', schema: obj({ account_id: str, confirmed: { const: true }, dev_allowance_usd: num }), headers: noStore },
    errors: ['not_found', 'rate_limited'],
  },
  {
    method: 'post',
    path: '/v1/login',
    tag: 'Accounts',
    summary: 'Start a dashboard session',
    description: "Checks that the key belongs to the account with that email and sets the session cookie (`__Host-session` over HTTPS, `session` otherwise); a session the browser had ends.",
    auth: 'none',
    input: { schema: loginRequest, from: 'body' },
    ok: { status: 200, description: 'Signed in; the cookie is set.', schema: obj({ account_id: str, workflow_id: str }), headers: { 'Set-Cookie': { description: 'The session cookie (HttpOnly, SameSite=Lax).', schema: str } } },
    errors: ['invalid_login', 'rate_limited'],
  },
  {
    method: 'post',
    path: '/v1/logout',
    tag: 'Accounts',
    summary: 'End the dashboard session',
    auth: 'none',
    ok: { status: 204, description: 'The session ended and the cookie is cleared.', content: 'none' },
    errors: ['csrf_rejected'],
  },
  // agents.ts
  { method: 'get', path: '/v1/agents', tag: 'Agents', summary: 'List agents with call totals and savings', auth: 'control', ok: { status: 200, description: 'Every agent of the account.', schema: list(agentView) } },
  {
    method: 'post',
    path: '/v1/agents',
    tag: 'Agents',
    summary: 'Create an agent',
    description: 'The answer carries the only copy of its key.',
    auth: 'control',
    input: { schema: createAgentInput, from: 'body' },
    ok: { status: 201, description: 'The agent (workflow) and its tenant key.', schema: open({ id: str, name: str, api_key: str, key_id: str }), headers: noStore },
    errors: ['conflict'],
  },
  { method: 'get', path: '/v1/agents/:id/keys', tag: 'Agents', summary: "List an agent's keys (by hint, never the key)", auth: 'control', input: { schema: workflowRef, from: 'params' }, ok: { status: 200, description: 'The keys.', schema: list(keyView) }, errors: ['not_found'] },
  {
    method: 'post',
    path: '/v1/agents/:id/keys',
    tag: 'Agents',
    summary: 'Create another key for an agent',
    auth: 'control',
    input: { schema: workflowRef, from: 'params' },
    ok: { status: 201, description: 'The key, shown this once.', schema: open({ id: str, api_key: str, hint: str }), headers: noStore },
    errors: ['not_found'],
  },
  { method: 'delete', path: '/v1/agents/:id/keys/:key_id', tag: 'Agents', summary: 'Revoke a key', auth: 'control', input: { schema: agentKeyRef, from: 'params' }, ok: { status: 204, description: 'Revoked.', content: 'none' }, errors: ['not_found'] },
  // provider-keys.ts
  {
    method: 'get',
    path: '/v1/settings/provider-keys',
    tag: 'Settings',
    summary: 'Providers with a stored key (never the key)',
    auth: 'control',
    ok: { status: 200, description: 'One entry per provider.', schema: list(view('A provider and whether a key is stored for it.')) },
  },
  {
    method: 'put',
    path: '/v1/settings/provider-keys/:provider',
    tag: 'Settings',
    summary: "Store a provider's key",
    description: 'Sealed at rest; Production runs on stored keys.',
    auth: 'control',
    input: { schema: putProviderKeyInput, from: 'body' },
    ok: { status: 200, description: 'Stored.', schema: view('The provider and that a key is set.') },
  },
  { method: 'delete', path: '/v1/settings/provider-keys/:provider', tag: 'Settings', summary: "Remove a provider's stored key", auth: 'control', input: { schema: providerRef, from: 'params' }, ok: { status: 204, description: 'Removed.', content: 'none' }, errors: ['not_found'] },
  // admin-catalog.ts
  { method: 'get', path: '/v1/admin/catalog', tag: 'Admin', summary: 'Every model with its full profile', auth: 'admin', ok: { status: 200, description: 'The catalog.', schema: list(ref('ModelProfile')) } },
  {
    method: 'put',
    path: '/v1/admin/catalog/:model',
    tag: 'Admin',
    summary: 'Create or replace one model',
    description: '`model` comes from the path (URL-encoded). Left out, `disabled`, `failover`, `strengths`, `search_only` and `moderation_only` take their defaults.',
    auth: 'admin',
    input: { schema: modelProfilePut, from: 'body' },
    ok: { status: 200, description: 'The stored profile.', schema: ref('ModelProfile') },
  },
  { method: 'delete', path: '/v1/admin/catalog/:model', tag: 'Admin', summary: 'Remove a model', auth: 'admin', ok: { status: 204, description: 'Removed.', content: 'none' }, errors: ['not_found'] },
  {
    method: 'post',
    path: '/v1/admin/catalog/:model/disabled',
    tag: 'Admin',
    summary: 'Take a model out of routing, or put it back',
    auth: 'admin',
    input: { schema: disabledWriteSchema, from: 'body' },
    ok: { status: 200, description: 'The updated profile.', schema: ref('ModelProfile') },
    errors: ['not_found'],
  },
  { method: 'get', path: '/v1/admin/catalog-aliases', tag: 'Admin', summary: 'Aliases: names priced as a catalog model', auth: 'admin', ok: { status: 200, description: 'Every alias and the model it is priced as.', schema: list(catalogAliasView) } },
  {
    method: 'put',
    path: '/v1/admin/catalog-aliases/:alias',
    tag: 'Admin',
    summary: 'Price a name (a dated snapshot) as a catalog model',
    description: 'A call naming the alias is sent to the vendor as named and priced, capped and charged as `model`. The alias must not be a catalog model.',
    auth: 'admin',
    input: { schema: catalogAliasWriteSchema, from: 'body' },
    ok: { status: 200, description: 'The alias.', schema: catalogAliasView },
    errors: ['conflict'],
  },
  { method: 'delete', path: '/v1/admin/catalog-aliases/:alias', tag: 'Admin', summary: 'Remove an alias', auth: 'admin', ok: { status: 204, description: 'Removed.', content: 'none' }, errors: ['not_found'] },
  { method: 'get', path: '/v1/admin/unknown-model-price', tag: 'Admin', summary: 'The price of models the catalog does not list', auth: 'admin', ok: { status: 200, description: 'The price in force (null: such models are served only on a tenant\'s own key).', schema: unknownModelPriceView } },
  {
    method: 'put',
    path: '/v1/admin/unknown-model-price',
    tag: 'Admin',
    summary: 'Set the price of models the catalog does not list',
    description: "On the platform's keys a model the catalog does not list is served at this price (USD per million tokens), capped and charged like any other; without a price it is refused 400 unknown_model. Overrides the UNKNOWN_MODEL_PRICE setting.",
    auth: 'admin',
    input: { schema: unknownModelPriceSchema, from: 'body' },
    ok: { status: 200, description: 'The price in force.', schema: unknownModelPriceView },
  },
  { method: 'delete', path: '/v1/admin/unknown-model-price', tag: 'Admin', summary: "Clear the admin's unknown-model price (back to the setting's)", auth: 'admin', ok: { status: 200, description: 'The price in force.', schema: unknownModelPriceView } },
  { method: 'get', path: '/v1/admin/providers', tag: 'Admin', summary: 'Registered vendors (key_set, never the key)', auth: 'admin', ok: { status: 200, description: 'The custom providers.', schema: list(providerView) } },
  {
    method: 'put',
    path: '/v1/admin/providers/:name',
    tag: 'Admin',
    summary: 'Register or update a vendor',
    auth: 'admin',
    input: { schema: providerWriteSchema.extend({ name: providerNameSchema }), from: 'body' },
    ok: { status: 200, description: 'The provider as stored (key_set, never the key).', schema: providerView },
  },
  { method: 'delete', path: '/v1/admin/providers/:name', tag: 'Admin', summary: 'Remove a vendor', auth: 'admin', input: { schema: providerByName, from: 'params' }, ok: { status: 204, description: 'Removed.', content: 'none' }, errors: ['not_found'] },
  {
    method: 'post',
    path: '/v1/admin/providers/:name/test',
    tag: 'Admin',
    summary: 'Call the vendor live to confirm its base URL and key',
    auth: 'admin',
    input: { schema: providerByName, from: 'params' },
    ok: { status: 200, description: "The probe's outcome.", schema: view('`provider` and what the probe found.') },
    errors: ['not_found'],
  },
  // admin-meter.ts
  {
    method: 'get',
    path: '/v1/admin/meter/quarantine',
    tag: 'Admin',
    summary: 'Metering rows the database refused, set aside',
    description: 'Newest first. A row PostgreSQL refuses for what it holds (SQLSTATE class 22, 23 or 54) is quarantined so the rest of its batch is written; each entry has the row, the table it was for, the reason and SQLSTATE. `status` defaults to those still quarantined.',
    auth: 'admin',
    input: { schema: meterQuarantineQuery, from: 'query' },
    ok: { status: 200, description: 'The entries.', schema: list(quarantinedRow) },
    errors: ['not_found'],
  },
  { method: 'get', path: '/v1/admin/meter/quarantine/:id', tag: 'Admin', summary: 'One quarantined metering row', auth: 'admin', input: { schema: meterQuarantineRef, from: 'params' }, ok: { status: 200, description: 'The entry.', schema: quarantinedRow }, errors: ['not_found'] },
  {
    method: 'post',
    path: '/v1/admin/meter/quarantine/:id/replay',
    tag: 'Admin',
    summary: 'Write a quarantined row again, once its cause is fixed',
    description: 'Idempotent: a row already stored is not stored twice. Refused again: 409 with the reason, and the row stays quarantined.',
    auth: 'admin',
    input: { schema: meterQuarantineRef, from: 'params' },
    ok: { status: 200, description: 'The entry, now `replayed`.', schema: quarantinedRow },
    errors: ['not_found', 'conflict'],
  },
  {
    method: 'post',
    path: '/v1/admin/meter/quarantine/:id/discard',
    tag: 'Admin',
    summary: 'Give a quarantined row up',
    auth: 'admin',
    input: { schema: meterQuarantineRef, from: 'params' },
    ok: { status: 200, description: 'The entry, now `discarded` (kept, never written).', schema: quarantinedRow },
    errors: ['not_found', 'conflict'],
  },
  // pipeline-routes.ts
  {
    method: 'post',
    path: '/v1/chat/completions',
    tag: 'Gateway',
    summary: 'Create a chat completion (OpenAI wire format), optimized',
    description:
      'Every field but `optimizer` goes to the vendor as sent; `optimizer` (the annotation: run, step, intent, cache, source) is read and removed. `model: "auto"` routes per step; any other model is honored verbatim. The answer is the vendor\'s chat.completion (or its SSE stream with `stream: true`) with an `optimizer` block of costs in USD.',
    auth: 'tenant',
    input: { schema: completionRequest, from: 'body', bodyError: 'invalid_request' },
    headers: [idempotencyKey, providerKey],
    ok: {
      status: 200,
      description: 'The completion, or its event stream.',
      content: 'stream',
      schema: {
        type: 'object',
        description: "OpenAI's chat.completion, as the vendor answered it (translated for non-OpenAI vendors), with the optimizer block.",
        properties: { id: str, object: { const: 'chat.completion' }, created: { type: 'integer' }, model: str, choices: { type: 'array', items: { type: 'object' } }, usage: { type: 'object' }, optimizer: ref('OptimizerBlock') },
        required: ['object', 'choices', 'optimizer'],
        additionalProperties: true,
      },
      headers: { 'Idempotent-Replayed': { description: '`true` on an answer replayed for a repeated Idempotency-Key.', schema: str } },
    },
    errors: [...upstream, 'wallet_empty', 'dev_allowance_exhausted', 'spend_cap_reached', 'subscription_required', 'idempotency_in_flight', 'idempotency_mismatch', 'prompt_injection_blocked', 'json_too_deep', 'conflict'],
  },
  {
    method: 'post',
    path: '/v1/responses',
    tag: 'Gateway',
    summary: "Create a response (OpenAI's Responses API), optimized",
    description:
      'The Responses API on the chat-completions pipeline (routing, caches, guard, metering, idempotency, budget): `input` (a string, or message, function_call and function_call_output items), `instructions`, function `tools`, `tool_choice`, `text.format` (json_schema or json_object), `max_output_tokens`, `temperature`, `top_p`, `metadata` and `stream` are translated for every vendor as chat completions are. The annotation is the `optimizer` field or `metadata.optimizer` (a JSON string). The gateway keeps no responses: `previous_response_id`, `conversation`, `store: true`, item references and built-in tools (web_search, file_search, …) are refused with a 400 naming the field. The answer is a `response` object (id `resp_<call id>`) with an `optimizer` block; with `stream: true`, the typed events, the `optimizer` block on `response.completed`.',
    auth: 'tenant',
    input: { schema: responsesRequestSchema, from: 'body', bodyError: 'invalid_request' },
    headers: [idempotencyKey, providerKey],
    ok: {
      status: 200,
      description: 'The response, or its event stream.',
      content: 'stream',
      schema: {
        type: 'object',
        description: "OpenAI's response object: output items (a message with output_text, function_call items), usage in input/output tokens, and the optimizer block.",
        properties: {
          id: str,
          object: { const: 'response' },
          created_at: { type: 'integer' },
          status: { type: 'string', enum: ['completed', 'incomplete', 'failed'] },
          model: str,
          output: { type: 'array', items: { type: 'object' } },
          usage: { type: 'object' },
          optimizer: ref('OptimizerBlock'),
        },
        required: ['id', 'object', 'status', 'output', 'optimizer'],
        additionalProperties: true,
      },
      headers: { 'Idempotent-Replayed': { description: '`true` on an answer replayed for a repeated Idempotency-Key.', schema: str } },
    },
    errors: [...upstream, 'wallet_empty', 'dev_allowance_exhausted', 'spend_cap_reached', 'subscription_required', 'idempotency_in_flight', 'idempotency_mismatch', 'prompt_injection_blocked', 'json_too_deep', 'conflict'],
  },
  {
    method: 'post',
    path: '/v1/embeddings',
    tag: 'Gateway',
    summary: 'Create embeddings (OpenAI wire format)',
    auth: 'tenant',
    input: { schema: embeddingsBodySchema, from: 'body', bodyError: 'invalid_request' },
    headers: [providerKey],
    ok: {
      status: 200,
      description: "OpenAI's embedding list with the optimizer block.",
      schema: {
        type: 'object',
        properties: {
          object: { const: 'list' },
          data: { type: 'array', items: obj({ object: { const: 'embedding' }, index: { type: 'integer' }, embedding: { oneOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string', description: 'base64 of little-endian float32' }] } }) },
          model: str,
          usage: { type: 'object' },
          optimizer: ref('OptimizerBlock'),
        },
        required: ['object', 'data', 'model', 'optimizer'],
      },
    },
    errors: [...upstream, 'embeddings_unsupported', 'not_embedding_model', 'wallet_empty', 'dev_allowance_exhausted', 'spend_cap_reached', 'json_too_deep'],
  },
  // calls.ts
  {
    method: 'get',
    path: '/v1/calls',
    tag: 'Calls and savings',
    summary: 'Per-call detail',
    description: 'Routed model, saving, reasons, grades, cost, cache and guardrail findings, newest first.',
    auth: 'control',
    input: { schema: callsQuery, from: 'query' },
    ok: { status: 200, description: 'The calls.', schema: list(callView) },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/calls/:id',
    tag: 'Calls and savings',
    summary: 'One call',
    description: "A call by its id: the `x-optimizer-call-id` header of its answer.",
    auth: 'control',
    input: { schema: callRef, from: 'params' },
    ok: { status: 200, description: 'The call.', schema: callView },
    errors: ['not_found'],
  },
  { method: 'get', path: '/v1/activity', tag: 'Calls and savings', summary: 'The raw metered timeline', auth: 'control', input: { schema: activityQuery, from: 'query' }, ok: { status: 200, description: 'The activity rows.', schema: list(activityView) } },
  { method: 'get', path: '/v1/dashboard/savings', tag: 'Calls and savings', summary: 'Savings totals split by source', auth: 'control', ok: { status: 200, description: 'The totals (USD).', schema: open({ ...savingsTotals, by_source: usdBySource }) } },
  {
    method: 'get',
    path: '/v1/dashboard/savings/series',
    tag: 'Calls and savings',
    summary: 'Savings over time',
    auth: 'control',
    input: { schema: savingsSeriesQuery, from: 'query' },
    ok: { status: 200, description: 'Savings in buckets over the last `days`.', schema: open({ bucket_seconds: int, points: { type: 'array', items: open({ at: time, ...savingsTotals, by_source: usdBySource }) } }) },
  },
  // workflows.ts
  {
    method: 'get',
    path: '/v1/workflows/:id/events',
    tag: 'Workflows',
    summary: 'Production events (drift, failover, resettled)',
    auth: 'control',
    input: { schema: eventsInput, from: 'query' },
    ok: { status: 200, description: 'The events of the last `days` days.', schema: list(view('An event.')) },
    errors: ['not_found'],
  },
  // reports.ts
  {
    method: 'get',
    path: '/v1/workflows/:id/report',
    tag: 'Workflows',
    summary: 'The live report, or stored version N',
    auth: 'control',
    input: { schema: reportInput, from: 'query' },
    ok: { status: 200, description: 'The report with its stage and newest version.', schema: reportView },
    errors: ['not_found'],
  },
  {
    method: 'post',
    path: '/v1/workflows/:id/report/finalize',
    tag: 'Workflows',
    summary: 'Store the report as final now, settled or not',
    auth: 'control',
    input: { schema: workflowRef, from: 'params' },
    ok: { status: 201, description: 'The stored version.', schema: reportView },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/workflows/:id/report/lock',
    tag: 'Workflows',
    summary: 'The lockfile, from the newest stored version',
    auth: 'control',
    input: { schema: workflowRef, from: 'params' },
    ok: { status: 200, description: 'The lockfile.', schema: view('Per step the pinned policy, model, reasoning effort, cache and pruning, with the evidence behind.') },
    errors: ['not_found'],
  },
  { method: 'get', path: '/v1/workflows/:id/stage', tag: 'Workflows', summary: "The workflow's stage", auth: 'control', input: { schema: workflowRef, from: 'params' }, ok: { status: 200, description: 'The stage.', schema: stageView }, errors: ['not_found'] },
  {
    method: 'post',
    path: '/v1/workflows/:id/stage',
    tag: 'Workflows',
    summary: 'Move the workflow to production',
    auth: 'control',
    input: { schema: stageInput, from: 'body' },
    ok: { status: 200, description: 'The new stage.', schema: stageView },
    errors: ['not_found', 'conflict', 'subscription_required'],
  },
  // models.ts
  {
    method: 'get',
    path: '/v1/models',
    tag: 'Gateway',
    summary: 'Models a client may name (OpenAI list shape)',
    description: 'The routed names `auto` and `discover`, then every enabled catalog model the gateway can reach.',
    auth: 'control',
    ok: { status: 200, description: 'The models.', schema: obj({ object: { const: 'list' }, data: { type: 'array', items: obj({ id: str, object: { const: 'model' }, created: { type: 'integer' }, owned_by: str }) } }) },
  },
  // optimizer.ts
  {
    method: 'post',
    path: '/v1/outcomes',
    tag: 'Gateway',
    summary: 'Report the outcome of a step',
    description: 'Attributed to the step of the run; send it once the result is known.',
    auth: 'control',
    input: { schema: outcomeRequest, from: 'body' },
    ok: { status: 202, description: 'Accepted.', schema: view('The outcome as recorded.') },
    errors: ['not_found', 'invalid_request'],
  },
  { method: 'get', path: '/v1/settings/routing', tag: 'Settings', summary: 'Routing settings', auth: 'control', ok: { status: 200, description: "The effective settings: the tenant's values with the defaults filled in (a null default depends on the call).", schema: routingSettingsView } },
  {
    method: 'put',
    path: '/v1/settings/routing',
    tag: 'Settings',
    summary: 'Change routing settings',
    description:
      'Merges into the stored settings: a field left out keeps its value, a nested object merges field by field (`cache.exact` alone keeps `cache.semantic`), a list is replaced, and null returns a field to its default. The raw write (spec 4.5): a ladder under an unknown tier key is accepted and learns from zero; the SDK and the web app refuse it.',
    auth: 'control',
    input: { schema: routingSettingsPatch, from: 'body' },
    ok: { status: 200, description: 'The effective settings after the write.', schema: routingSettingsView },
  },
  { method: 'get', path: '/v1/workflows', tag: 'Workflows', summary: 'Workflows with their stage and progress', auth: 'control', ok: { status: 200, description: 'Each workflow: stage, steps_expected, steps_settled, ready.', schema: list(workflowView) } },
  // steps.ts
  { method: 'get', path: '/v1/workflows/:id/steps', tag: 'Workflows', summary: 'The step registry', auth: 'control', input: { schema: workflowRef, from: 'params' }, ok: { status: 200, description: 'The steps.', schema: list(stepView) }, errors: ['not_found'] },
  {
    method: 'patch',
    path: '/v1/workflows/:id/steps/:fingerprint',
    tag: 'Workflows',
    summary: 'Exclude a step from the expected steps, or give back its semantic cache',
    auth: 'control',
    input: { schema: stepPatchInput, from: 'body' },
    ok: { status: 200, description: 'The step.', schema: stepView },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/workflows/:id/steps/:fingerprint/calls',
    tag: 'Workflows',
    summary: "The stored responses behind a step's report entry",
    auth: 'control',
    input: { schema: stepCallsInput, from: 'query' },
    ok: { status: 200, description: 'The calls, each with its recording (null when none was kept).', schema: list(open({ ...callFields, recording: nullable(recordingView) })) },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/agents/:id/graph',
    tag: 'Agents',
    summary: "The agent's steps as a graph of its calls",
    auth: 'control',
    input: { schema: workflowRef, from: 'params' },
    ok: {
      status: 200,
      description: 'The call tree with declared parents; else a linear chain (`inferred: true`).',
      schema: open({ agent: str, nodes: { type: 'array', items: open({ fingerprint: str, label: str, calls: int }) }, edges: { type: 'array', items: view('A parent → child link between steps.') }, inferred: bool }),
    },
    errors: ['not_found'],
  },
  // capture.ts
  { method: 'get', path: '/v1/settings/capture', tag: 'Settings', summary: 'Content capture and retention', auth: 'control', ok: { status: 200, description: 'The settings.', schema: captureSettings } },
  { method: 'put', path: '/v1/settings/capture', tag: 'Settings', summary: 'Change content capture and retention', auth: 'control', description: 'Merges: a field left out keeps its value; null returns it to its default.', input: { schema: captureSettingsPatch, from: 'body' }, ok: { status: 200, description: 'The settings.', schema: captureSettings } },
  {
    method: 'get',
    path: '/v1/workflows/:id/recordings',
    tag: 'Workflows',
    summary: "The workflow's recordings, a page at a time",
    description: '`step` (a fingerprint) narrows to one step\'s recordings.',
    auth: 'control',
    input: { schema: recordingsInput, from: 'query' },
    ok: { status: 200, description: 'A page of recordings and the cursor of the next.', schema: obj({ data: { type: 'array', items: recordingView }, next_cursor: { type: ['string', 'null'] } }) },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/workflows/:id/recordings/:recording_id',
    tag: 'Workflows',
    summary: 'One recording, in full',
    description: "A recording's id is its call's id.",
    auth: 'control',
    input: { schema: recordingRef, from: 'params' },
    ok: { status: 200, description: 'The recording.', schema: recordingView },
    errors: ['not_found'],
  },
  // discovery.ts
  { method: 'put', path: '/v1/proxy-agents/:id/discovery', tag: 'Discovery', summary: 'Turn discovery on or off', auth: 'control', input: { schema: discoveryInput, from: 'body' }, ok: { status: 200, description: 'The setting as read back, with the progress.', schema: ref('DiscoveryProgress') }, errors: ['not_found'] },
  { method: 'get', path: '/v1/proxy-agents/:id/discovery', tag: 'Discovery', summary: 'Live discovery progress', auth: 'control', input: { schema: workflowRef, from: 'params' }, ok: { status: 200, description: 'Derived state, credit, every step seen.', schema: ref('DiscoveryProgress') }, errors: ['not_found'] },
  {
    method: 'get',
    path: '/v1/proxy-agents/:id/discovery/report',
    tag: 'Discovery',
    summary: 'Settled discovery answers',
    auth: 'control',
    input: { schema: workflowRef, from: 'params' },
    ok: {
      status: 200,
      description: 'Settled answers, priced deltas, reachability against current keys.',
      schema: open({ agent: str, state: str, generated_at: time, steps: { type: 'array', items: open({ fingerprint: str, label: str, settled: bool, excluded: bool, reachable: bool }, 'A step: its settled answer, its priced delta against the baseline, and whether the current keys reach it.') }, totals: open({ per_month: open({ baseline_usd: num, chosen_usd: num, saving_usd: num }) }) }),
    },
    errors: ['not_found'],
  },
  // guard-settings.ts
  { method: 'get', path: '/v1/settings/guard', tag: 'Settings', summary: 'PII redaction and injection policy', auth: 'control', ok: { status: 200, description: 'The settings.', schema: guardSettings } },
  { method: 'put', path: '/v1/settings/guard', tag: 'Settings', summary: 'Change PII redaction and injection policy', auth: 'control', description: 'Merges: a field left out keeps its value; null returns it to its default.', input: { schema: guardSettingsPatch, from: 'body' }, ok: { status: 200, description: 'The settings.', schema: guardSettings } },
  {
    method: 'get',
    path: '/v1/settings/limits',
    tag: 'Settings',
    summary: 'Rate limits: requests and tokens per minute',
    auth: 'control',
    ok: { status: 200, description: "The tenant's and its keys' limits, and the platform's ceiling (null: none).", schema: rateLimitsView },
  },
  {
    method: 'put',
    path: '/v1/settings/limits',
    tag: 'Settings',
    summary: 'Change rate limits (within the platform ceiling)',
    description:
      'Merges into the stored limits: a field left out keeps its value, null returns it to its default (no limit of its own), `keys` when sent replaces the list. A limit above the platform ceiling is 422 naming the field; a key that is not a live key of the tenant is 404. Past a limit, completions and embeddings answer 429 `rate_limited` with Retry-After.',
    auth: 'control',
    input: { schema: rateLimitSettingsPatch, from: 'body' },
    ok: { status: 200, description: 'The limits as stored, with the ceiling.', schema: rateLimitsView },
    errors: ['not_found'],
  },
  // alert-settings.ts
  { method: 'get', path: '/v1/settings/alerts', tag: 'Alerts', summary: 'Alert settings and webhook endpoints', auth: 'control', ok: { status: 200, description: 'The settings.', schema: ref('AlertSettingsView') } },
  { method: 'put', path: '/v1/settings/alerts', tag: 'Alerts', summary: 'Change email, spend cap, thresholds and events', description: 'Merges: a field left out keeps its value; null returns it to its default.', auth: 'control', input: { schema: alertSettingsPatch, from: 'body' }, ok: { status: 200, description: 'The settings.', schema: ref('AlertSettingsView') } },
  {
    method: 'post',
    path: '/v1/settings/alerts/webhooks',
    tag: 'Alerts',
    summary: 'Add a webhook endpoint',
    description: 'The signing secret is in this answer only.',
    auth: 'control',
    input: { schema: createWebhookRequest, from: 'body' },
    ok: { status: 201, description: 'The endpoint and its secret.', schema: webhookWithSecret },
  },
  {
    method: 'post',
    path: '/v1/settings/alerts/webhooks/:id/rotate',
    tag: 'Alerts',
    summary: "Rotate a webhook endpoint's signing secret",
    auth: 'control',
    input: { schema: webhookRef, from: 'params' },
    ok: { status: 200, description: 'The endpoint and its new secret.', schema: webhookWithSecret },
    errors: ['not_found'],
  },
  { method: 'delete', path: '/v1/settings/alerts/webhooks/:id', tag: 'Alerts', summary: 'Remove a webhook endpoint', auth: 'control', input: { schema: webhookRef, from: 'params' }, ok: { status: 204, description: 'Removed.', content: 'none' }, errors: ['not_found'] },
  // connections.ts
  { method: 'get', path: '/v1/connections', tag: 'Managed agents', summary: 'The connections', auth: 'control', ok: { status: 200, description: 'Every connection, never a secret.', schema: list(connectionView) } },
  { method: 'get', path: '/v1/connections/:name', tag: 'Managed agents', summary: 'One connection', auth: 'control', input: { schema: connectionRef, from: 'params' }, ok: { status: 200, description: 'The connection.', schema: connectionView }, errors: ['not_found'] },
  {
    method: 'put',
    path: '/v1/connections/:name',
    tag: 'Managed agents',
    summary: 'Store or replace a connection',
    description: 'http(s) only; localhost, .local, loopback, private and other special-purpose addresses are refused, the host name resolved now and again at each call. A secret left out keeps the stored one.',
    auth: 'control',
    input: { schema: putConnectionInput, from: 'body' },
    ok: { status: 201, description: 'Created (200 when replaced).', schema: connectionView },
    errors: ['address_refused'],
  },
  { method: 'delete', path: '/v1/connections/:name', tag: 'Managed agents', summary: 'Remove a connection', auth: 'control', input: { schema: connectionRef, from: 'params' }, ok: { status: 204, description: 'Removed.', content: 'none' }, errors: ['not_found'] },
  // managed-agents.ts
  { method: 'get', path: '/v1/managed-agents', tag: 'Managed agents', summary: 'The managed agents', auth: 'control', ok: { status: 200, description: 'Every managed agent.', schema: list(managedAgentView) } },
  { method: 'post', path: '/v1/managed-agents', tag: 'Managed agents', summary: 'Create a managed agent', description: 'The kind (chain or action) and its job config are validated.', auth: 'control', input: { schema: createManagedAgentRequest, from: 'body' }, ok: { status: 201, description: 'The agent.', schema: managedAgentView } },
  {
    method: 'post',
    path: '/v1/managed-agents/playground',
    tag: 'Managed agents',
    summary: 'Run a custom job config',
    description: 'The config is validated before a run is counted against the month’s run cap.',
    auth: 'control',
    input: { schema: playgroundRequest, from: 'body' },
    ok: { status: 202, description: 'The run, started.', schema: managedRunView },
    errors: ['run_cap_reached', 'not_found'],
  },
  {
    method: 'post',
    path: '/v1/managed-agents/:id/runs',
    tag: 'Managed agents',
    summary: 'Start a run of a managed agent',
    description: 'Counted against the month’s run cap; past it, 402 run_cap_reached with cap and used.',
    auth: 'control',
    input: { schema: startRunInput, from: 'body' },
    ok: { status: 202, description: 'The run, started.', schema: managedRunView },
    errors: ['run_cap_reached', 'not_found'],
  },
  {
    method: 'get',
    path: '/v1/managed-agents/:id/runs',
    tag: 'Managed agents',
    summary: "A managed agent's runs",
    description: 'The latest 50, newest first.',
    auth: 'control',
    input: { schema: managedAgentRef, from: 'params' },
    ok: { status: 200, description: 'The runs.', schema: list(managedRunSummary) },
    errors: ['not_found'],
  },
  { method: 'get', path: '/v1/managed-runs/:id', tag: 'Managed agents', summary: 'One managed run', auth: 'control', input: { schema: managedRunRef, from: 'params' }, ok: { status: 200, description: 'The run.', schema: managedRunView }, errors: ['not_found'] },
  {
    method: 'get',
    path: '/v1/managed-runs/:id/events',
    tag: 'Managed agents',
    summary: 'The run’s events (SSE)',
    description: 'Server-sent events, `id` the event’s sequence number; send Last-Event-ID (or ?last_event_id=) to resume after it. Ends after run.completed or run.failed.',
    auth: 'control',
    input: { schema: managedRunRef, from: 'params' },
    headers: [{ name: 'Last-Event-ID', description: 'Resume after this event.', schema: { type: 'string' } }],
    ok: { status: 200, description: 'Server-sent events: `id` the sequence number, `event` the type (run.started, step.started, step.completed, action.proposed, run.waiting_approval, action.executing, action.executed, action.failed, run.resumed, run.completed, run.failed), `data` the event as JSON.', content: 'events' },
    errors: ['not_found'],
  },
  {
    method: 'post',
    path: '/v1/managed-runs/:id/actions/:action/execute',
    tag: 'Managed agents',
    summary: 'Execute one proposed action',
    description: 'Calls the action’s connection once; a repeat answers the first result with replayed: true.',
    auth: 'control',
    input: { schema: managedActionRef, from: 'params' },
    ok: { status: 200, description: 'The action and its result.', schema: open({ ...managedActionFields, replayed: bool }) },
    errors: ['not_found', 'conflict', 'address_refused', 'connection_failed'],
  },
  // billing.ts
  {
    method: 'post',
    path: '/v1/estimate',
    tag: 'Billing',
    summary: 'Project the saving on a monthly spend',
    description: 'For a prospect, from measured benchmark results; deliberately under-claims. Limited per client address (DOOR_ESTIMATE_PER_MINUTE).',
    auth: 'none',
    input: { schema: estimateRequest, from: 'body' },
    ok: { status: 200, description: 'The projection.', schema: view('A projection of saving and fee.') },
    errors: ['rate_limited'],
  },
  {
    method: 'get',
    path: '/v1/billing',
    tag: 'Billing',
    summary: 'Wallet, dev allowance, prices, auto top-up, subscriptions and the last 50 ledger entries',
    auth: 'control',
    ok: {
      status: 200,
      description: 'The billing view (USD, with the exact micro-dollar amounts beside).',
      schema: open({
        balances: open({ wallet_usd: num, dev_allowance_usd: num, wallet_micros: int, dev_allowance_micros: int }),
        prices: open({ currency: str, fee_rate: num }),
        auto_topup: nullable(
          open({
            threshold_usd: num,
            amount_usd: num,
            payment_method_saved: bool,
            last_attempt: nullable(open({ status: { enum: ['pending', 'succeeded', 'failed'] }, amount_usd: num, created_at: time, failure: nullable(str) }, 'The latest off-session charge auto top-up started.')),
          }),
        ),
        subscriptions: { type: 'array', items: subscriptionView },
        ledger: { type: 'array', maxItems: LEDGER_ENTRIES_SHOWN, items: open({ id: str, book: str, amount_usd: num, amount_micros: int, kind: str, created_at: time }) },
      }),
    },
  },
  { method: 'get', path: '/v1/billing/statements', tag: 'Billing', summary: 'Fee statements', auth: 'control', input: { schema: statementsQuery, from: 'query' }, ok: { status: 200, description: 'The statements in the period.', schema: list(open({ period: str, from: time, to: time, closed: bool, fee_rate: num, calls: int, savings: usdBySource, baseline_usd: num, actual_usd: num, fees_usd: num, usage_usd: num, amount_due_usd: num }, 'A calendar month (UTC).')) } },
  {
    method: 'get',
    path: '/v1/billing/savings-ledger',
    tag: 'Billing',
    summary: 'The savings ledger',
    description: "Per calendar month (UTC) from `from`'s to `to`'s (default: this month), oldest first: what the calls saved by source, the fee taken from it, what the tenant kept, and running totals. The same figures as the statements.",
    auth: 'control',
    input: { schema: statementsQuery, from: 'query' },
    ok: {
      status: 200,
      description: 'The periods and their totals (USD).',
      schema: obj({
        data: { type: 'array', items: open({ period: str, from: time, to: time, closed: bool, calls: int, savings: usdBySource, fee_rate: num, fee_usd: num, net_saving_usd: num, cumulative_saving_usd: num, cumulative_fee_usd: num, cumulative_net_saving_usd: num }, 'A calendar month (UTC).') },
        totals: obj({ saving_usd: num, fee_usd: num, net_saving_usd: num }),
      }),
    },
  },
  {
    method: 'post',
    path: '/v1/billing/topup',
    tag: 'Billing',
    summary: 'Top up the wallet through a hosted checkout page',
    auth: 'control',
    input: { schema: topupRequest, from: 'body' },
    ok: { status: 201, description: 'The checkout page.', schema: obj({ url: { type: 'string', format: 'uri' }, checkout_id: str }), headers: noStore },
    errors: ['payment_unavailable'],
  },
  {
    method: 'put',
    path: '/v1/billing/auto-topup',
    tag: 'Billing',
    summary: 'Set or turn off auto top-up',
    description:
      'When a charge takes the wallet below `threshold_usd`, `amount_usd` is charged once (off-session) to the card the first paid checkout saved, and credited when Stripe confirms it. Once per crossing: a declined charge alerts `auto_topup_failed` and is not retried until the wallet has been back at or above the threshold. Both null turns it off.',
    auth: 'control',
    input: { schema: autoTopupRequest, from: 'body' },
    ok: { status: 200, description: 'The setting as stored.', schema: obj({ threshold_usd: nullable(num), amount_usd: nullable(num) }) },
  },
  {
    method: 'post',
    path: '/v1/billing/webhook',
    tag: 'Billing',
    summary: "Stripe's webhook",
    description: 'Called by Stripe; the `Stripe-Signature` header over the raw body is the authentication. Each event id is credited once.',
    auth: 'stripe',
    ok: { status: 200, description: 'Received.', schema: obj({ received: { const: true }, credited: { type: 'boolean' } }) },
    errors: ['invalid_signature', 'payment_unavailable', 'payload_too_large'],
  },
  {
    method: 'get',
    path: '/v1/workflows/:id/subscription',
    tag: 'Workflows',
    summary: "The workflow's managed subscription",
    auth: 'control',
    input: { schema: workflowRef, from: 'params' },
    ok: { status: 200, description: 'The subscription.', schema: subscription },
    errors: ['not_found'],
  },
  {
    method: 'post',
    path: '/v1/workflows/:id/subscription',
    tag: 'Workflows',
    summary: 'Start managed Production (subscribe)',
    auth: 'control',
    input: { schema: workflowRef, from: 'params' },
    ok: { status: 201, description: 'The subscription.', schema: subscription },
    errors: ['not_found', 'conflict', 'payment_unavailable', 'wallet_empty'],
  },
  {
    method: 'delete',
    path: '/v1/workflows/:id/subscription',
    tag: 'Workflows',
    summary: 'Cancel at the end of the paid period',
    auth: 'control',
    input: { schema: workflowRef, from: 'params' },
    ok: { status: 200, description: 'The subscription, set to end.', schema: subscription },
    errors: ['not_found'],
  },
  {
    method: 'post',
    path: '/v1/admin/accounts/:account/credit',
    tag: 'Admin',
    summary: 'Credit an account (support credit, not a payment)',
    auth: 'admin',
    input: { schema: adminCreditRequest, from: 'body' },
    ok: { status: 204, description: 'Credited.', content: 'none' },
    errors: ['not_found'],
  },
  // admin-signup.ts
  {
    method: 'get',
    path: '/v1/admin/settings/signup',
    tag: 'Admin',
    summary: "What a new account gets: its dev allowance on the platform's keys, and whether it waits for email confirmation",
    auth: 'admin',
    ok: { status: 200, description: 'The setting in force.', schema: signupSettingsSchema },
  },
  {
    method: 'put',
    path: '/v1/admin/settings/signup',
    tag: 'Admin',
    summary: 'Change what a new account gets',
    description:
      'Merges: a field left out keeps its value, null returns it to its default (BILLING_DEV_ALLOWANCE_USD, no confirmation). Applies to accounts made from now on; an account keeps what it was promised. `require_email_confirmation` needs the email channel (SMTP_URL).',
    auth: 'admin',
    input: { schema: signupSettingsWrite, from: 'body' },
    ok: { status: 200, description: 'The setting in force after the write.', schema: signupSettingsSchema },
  },
];

/** The errors a route can answer with beyond its own list: from its auth, its input, and the server. */
function errorsOf(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>(op.errors ?? []);
  const write = op.method !== 'get';
  if (op.auth === 'tenant' || op.auth === 'control') ['missing_api_key', 'invalid_api_key'].forEach((c) => codes.add(c as ErrorCode));
  if (op.auth === 'control' && write) codes.add('csrf_rejected');
  if (op.auth === 'admin') codes.add('invalid_admin_key');
  // wrong keys from one address, and the admin routes, are limited per client address (limits/door-throttle.ts)
  if (op.auth === 'tenant' || op.auth === 'control' || op.auth === 'admin') codes.add('rate_limited');
  if (op.input?.from === 'body') ['invalid_json', 'unsupported_media_type', 'payload_too_large'].forEach((c) => codes.add(c as ErrorCode));
  if (op.input) codes.add(op.input.bodyError ?? 'validation_failed');
  else if (/:\w+/.test(op.path)) codes.add('validation_failed');
  codes.add('internal');
  codes.add('unavailable');
  return [...codes];
}

function responsesOf(op: Operation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { ok } = op;
  const schema = ok.schema === undefined ? undefined : ok.schema instanceof z.ZodType ? json(ok.schema, 'output') : ok.schema;
  const content =
    ok.content === 'none'
      ? undefined
      : ok.content === 'text'
        ? { 'text/plain': { schema: str } }
        : ok.content === 'events'
          ? { 'text/event-stream': { schema: { type: 'string', description: ok.description } } }
          : {
            'application/json': { schema: schema ?? { type: 'object' } },
            ...(ok.content === 'stream' ? { 'text/event-stream': { schema: { type: 'string', description: 'Server-sent events of chat.completion.chunk objects; the last carries the optimizer block, then `data: [DONE]`.' } } } : {}),
          };
  out[String(ok.status)] = { description: ok.description, ...(ok.headers ? { headers: ok.headers } : {}), ...(content ? { content } : {}) };
  for (const alt of op.also ?? []) out[String(alt.status)] = { description: alt.description, content: { 'application/json': { schema: alt.schema } } };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorsOf(op)) {
    const status = errorCatalogue[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    if (String(status) in out) continue;
    const sorted = codes.sort();
    const retry = status === 429 || status === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } } } : {};
    out[String(status)] = {
      description: `The error envelope; \`code\`: ${sorted.map((c) => `\`${c}\``).join(', ')} (see docs/errors.md).`,
      ...retry,
      content: { 'application/json': { schema: ref('Error') } },
    };
  }
  return out;
}

function securityOf(auth: Auth): Record<string, string[]>[] {
  switch (auth) {
    case 'none':
      return [];
    case 'tenant':
      return [{ tenantKey: [] }];
    case 'control':
      return [{ tenantKey: [] }, { session: [] }];
    case 'admin':
      return [{ adminKey: [] }];
    case 'stripe':
      return [{ stripeSignature: [] }];
  }
}

/** `/v1/workflows/:id/steps` → `/v1/workflows/{id}/steps` */
export function openApiPath(fastifyPath: string): string {
  return fastifyPath.replace(/:(\w+)/g, '{$1}');
}

/** `post /v1/workflows/:id/report/finalize` → `postWorkflowsByIdReportFinalize` */
function operationId(op: Operation): string {
  const words = op.path
    .replace(/^\/v1\//, '/')
    .split('/')
    .filter(Boolean)
    .flatMap((seg) => (seg.startsWith(':') ? ['by', ...seg.slice(1).split('_')] : seg.split(/[-_.]/)));
  return op.method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function parametersOf(op: Operation): { parameters: unknown[]; body?: JsonSchema } {
  const names = [...op.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const input = op.input ? json(op.input.schema, 'input') : { type: 'object', properties: {} };
  const props = { ...((input.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  const required = new Set((input.required as string[] | undefined) ?? []);
  const parameters: unknown[] = names.map((name) => ({ name, in: 'path', required: true, schema: props[name] ?? { type: 'string', minLength: 1 } }));
  for (const name of names) {
    delete props[name];
    required.delete(name);
  }
  for (const h of op.headers ?? []) parameters.push({ name: h.name, in: 'header', required: h.required ?? false, description: h.description, schema: h.schema });
  if (op.input?.from === 'query') {
    for (const [name, schema] of Object.entries(props)) parameters.push({ name, in: 'query', required: required.has(name), schema });
  }
  if (op.input?.from !== 'body') return { parameters };
  const body: JsonSchema = { ...input, properties: props };
  if (required.size > 0) body.required = [...required];
  else delete body.required;
  return { parameters, body };
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  [k: string]: unknown;
}

/** The whole document. Deterministic: the same code gives the same bytes. */
export function openApiDocument(): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const { parameters, body } = parametersOf(op);
    const entry: Record<string, unknown> = {
      operationId: operationId(op),
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      security: securityOf(op.auth),
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
      responses: responsesOf(op),
    };
    (paths[openApiPath(op.path)] ??= {})[op.method] = entry;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Optimizer gateway',
      version: '1.0.0',
      summary: 'A cost-optimizing LLM gateway: the OpenAI-compatible data plane, the tenant control plane and the admin API.',
      description:
        'Generated by `node scripts/openapi.ts` from the routes\' own zod schemas and the error catalogue; do not edit by hand. Every failure answers the error envelope with a stable `code` (docs/errors.md). GraphQL (`/graphql`) and tRPC (`/trpc`) are the other two doors over the same domain and describe themselves.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'A gateway on its default port (PORT=8080).' }],
    tags: Object.entries(tags).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        tenantKey: { type: 'http', scheme: 'bearer', description: 'A tenant key, `Authorization: Bearer sk-opt-...`. Identifies the tenant and its workflow; it is not a provider key.' },
        session: { type: 'apiKey', in: 'cookie', name: 'session', description: 'The dashboard session cookie set by POST /v1/login (`__Host-session` over HTTPS). Writes must come from the gateway\'s own origin (CSRF check).' },
        adminKey: { type: 'http', scheme: 'bearer', description: 'The platform admin key, `Authorization: Bearer <ADMIN_KEY>`, on /v1/admin routes.' },
        stripeSignature: { type: 'apiKey', in: 'header', name: 'Stripe-Signature', description: "Stripe's signature of the raw webhook body." },
      },
      schemas: {
        Error: {
          type: 'object',
          description: 'The REST error envelope. A 402 carries its `type` (wallet_empty, …); a run-cap 402 adds `cap` and `used`; a vendor failure may add the vendor\'s raw error.',
          properties: {
            error: {
              type: 'object',
              properties: {
                message: str,
                type: { type: 'string', enum: [...new Set(Object.values(errorCatalogue).map((e) => e.type))].sort() },
                code: { type: 'string', enum: Object.keys(errorCatalogue).sort() },
                param: { type: ['string', 'null'] },
              },
              required: ['message', 'type', 'code', 'param'],
              additionalProperties: true,
            },
          },
          required: ['error'],
        },
        OptimizerBlock: { ...json(optimizerBlock, 'output'), description: 'What the call cost and saved, in USD.' },
        ModelProfile: json(modelProfileSchema, 'output'),
        DiscoveryProgress: open({ agent: str, enabled: bool, state: str, credit: discoveryCredit, steps: { type: 'array', items: open({ fingerprint: str, label: str, calls: int, first_seen: time, last_seen: time, excluded: bool, settled: bool, chosen: nullable(str) }) } }, 'Discovery of a proxy agent: its derived state, its credit and every step seen.'),
        AlertSettingsView: (() => {
          const settings = json(alertSettings, 'output');
          const props = settings.properties as Record<string, JsonSchema>;
          return { ...settings, properties: { ...props, webhooks: { type: 'array', items: webhookView } }, required: [...(settings.required as string[]), 'webhooks'] };
        })(),
      },
    },
  };
}
