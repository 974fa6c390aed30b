// Operations that are no capability because HTTP alone says them: liveness, readiness,
// metrics and this document; signup and the dashboard session (cookies, per-address limits);
// Stripe's webhook (a signature over the raw body); a managed run's live events (server-sent
// events, resumable with Last-Event-ID). docs/decisions.md, "Capabilities".
import { loginRequest, managedRunRef, signupRequest } from '@optimizer/schema';
import { signupConfirmRequest } from '../../routes/signup.ts';
import { num, obj, str } from '../json.ts';
import type { Operation } from '../operation.ts';
import { OPENAPI_PATH } from '../paths.ts';

const readiness = obj({ status: { enum: ['ready', 'not_ready'] }, checks: { type: 'object', additionalProperties: { enum: ['ok', 'down'] } } });

const noStore = { 'Cache-Control': { description: '`no-store`: the answer holds a secret shown only once.', schema: str } };

export const httpOnly: Operation[] = [
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
];
