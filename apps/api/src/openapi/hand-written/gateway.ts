// The OpenAI-compatible data plane: chat completions, the Responses API, embeddings and the
// model list. Their wire is OpenAI's (streams, idempotency, the vendor's key per call), served
// by the completion pipeline, not a capability (docs/decisions.md, "Capabilities").
import { completionRequest } from '@optimizer/schema';
import type { ErrorCode } from '../../errors.ts';
import { embeddingsBodySchema } from '../../pipeline/embeddings.ts';
import { responsesRequestSchema } from '../../wire/responses-request.ts';
import { obj, ref, str } from '../json.ts';
import type { Operation } from '../operation.ts';

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

export const gateway: Operation[] = [
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
    errors: [...upstream, 'wallet_empty', 'dev_allowance_exhausted', 'spend_cap_reached', 'subscription_required', 'production_key_required', 'idempotency_in_flight', 'idempotency_mismatch', 'prompt_injection_blocked', 'json_too_deep', 'conflict'],
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
    errors: [...upstream, 'wallet_empty', 'dev_allowance_exhausted', 'spend_cap_reached', 'subscription_required', 'production_key_required', 'idempotency_in_flight', 'idempotency_mismatch', 'prompt_injection_blocked', 'json_too_deep', 'conflict'],
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
    errors: [...upstream, 'embeddings_unsupported', 'not_embedding_model', 'wallet_empty', 'dev_allowance_exhausted', 'spend_cap_reached', 'production_key_required', 'json_too_deep'],
  },
  {
    method: 'get',
    path: '/v1/models',
    tag: 'Gateway',
    summary: 'Models a client may name (OpenAI list shape)',
    description: 'The routed names `auto` and `discover`, then every enabled catalog model the gateway can reach.',
    auth: 'control',
    ok: { status: 200, description: 'The models.', schema: obj({ object: { const: 'list' }, data: { type: 'array', items: obj({ id: str, object: { const: 'model' }, created: { type: 'integer' }, owned_by: str }) } }) },
  },
];
