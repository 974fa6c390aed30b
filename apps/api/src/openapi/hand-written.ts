// The operations of the REST door that are not capabilities (apps/api/src/capabilities/):
// what no other door has or what HTTP alone can say, each with why it is written here.
import { z } from 'zod';
import {
  adminCreditRequest,
  completionRequest,
  disabledWriteSchema,
  catalogAliasWriteSchema,
  unknownModelPriceSchema,
  loginRequest,
  managedRunRef,
  modelProfileSchema,
  optimizerBlock,
  providerNameSchema,
  providerWriteSchema,
  signupRequest,
} from '@optimizer/schema';
import { modelProfileDefaults } from '../admin/catalog.ts';
import { meterQuarantineQuery, meterQuarantineRef } from '../routes/admin-meter.ts';
import { signupConfirmRequest } from '../routes/signup.ts';
import { signupSettingsSchema, signupSettingsWrite } from '../tenancy/signup-settings.ts';
import type { ErrorCode } from '../errors.ts';
import { embeddingsBodySchema } from '../pipeline/embeddings.ts';
import { responsesRequestSchema } from '../wire/responses-request.ts';
import { bool, json, list, nullable, num, obj, open, ref, str, time, view, type JsonSchema } from './json.ts';
import type { Operation } from './operation.ts';
import { OPENAPI_PATH } from './paths.ts';


const providerView = open({ name: str, base_url: str, wire: str, enabled: bool, key_set: bool, built_in: bool }, 'A provider: its base URL and wire, whether a key is set (never the key).');
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
export const handWritten: Operation[] = [
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
  // managed-agents.ts
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
    path: '/v1/billing/webhook',
    tag: 'Billing',
    summary: "Stripe's webhook",
    description: 'Called by Stripe; the `Stripe-Signature` header over the raw body is the authentication. Each event id is credited once.',
    auth: 'stripe',
    ok: { status: 200, description: 'Received.', schema: obj({ received: { const: true }, credited: { type: 'boolean' } }) },
    errors: ['invalid_signature', 'payment_unavailable', 'payload_too_large'],
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

/** Components the hand-written operations name. */
export const handWrittenComponents: Record<string, JsonSchema> = {
    OptimizerBlock: { ...json(optimizerBlock, 'output'), description: 'What the call cost and saved, in USD.' },
    ModelProfile: json(modelProfileSchema, 'output'),
    };
