// The tenant's settings (spec 4.5): routing, stored provider keys (never returned), content
// capture, the guard, rate limits (design §10) and alerts with their webhook endpoints (spec 6).
// A settings write merges (a field left out keeps its value, null returns it to its default);
// on GraphQL it is one input object whose nulls are kept.
import { z } from 'zod';
import {
  alertSettingsPatch,
  captureSettingsPatch,
  createWebhookRequest,
  guardSettingsPatch,
  providerRef,
  putProviderKeyInput,
  rateLimitSettingsPatch,
  routingSettingsPatch,
  webhookRef,
} from '@optimizer/schema';
import { alertSettings, createWebhook, putAlertSettings, removeWebhook, rotateWebhook } from '../domain/alerts.ts';
import { captureSettings, putCaptureSettings } from '../domain/capture.ts';
import { guardSettings, putGuardSettings } from '../domain/guard.ts';
import { putRateLimits, rateLimits } from '../domain/limits.ts';
import { listProviderKeys, putProviderKey as putKey, putRoutingSettings, removeProviderKey as removeKey, routingSettings } from '../domain/settings.ts';
import { unknownTierWarnings } from '../settings/tier-warnings.ts';
import { capability } from './capability.ts';
import { AlertSettings, CaptureSettings, GuardSettings, ProviderKey, ProviderKeyState, RateLimits, RemovedWebhookEndpoint, RoutingSettings, WebhookEndpointSecret } from './views/settings.ts';

const tag = 'Settings';
const merges = 'Merges: a field left out keeps its value; null returns it to its default.';
/** A settings write's one GraphQL argument: an input object merging as the REST write does. */
const mergeInput = (name: string, topic: string, path: string, more = '') => ({
  arg: 'input',
  name,
  description: `Merges into the ${topic}, as PUT ${path} does: a field left out keeps its value, null returns it to its default${more}.`,
});

export const settings = {
  routing: capability({
    auth: 'control',
    output: RoutingSettings,
    run: routingSettings,
    warnings: (answer) => unknownTierWarnings(answer.ladders),
    rest: { method: 'get', path: '/v1/settings/routing', tag, summary: 'Routing settings', answer: "The effective settings: the tenant's values with the defaults filled in (a null default depends on the call)." },
    graphql: { name: 'routingSettings' },
  }),
  setRouting: capability({
    auth: 'control',
    input: routingSettingsPatch,
    output: RoutingSettings,
    run: putRoutingSettings,
    warnings: (answer) => unknownTierWarnings(answer.ladders),
    rest: {
      method: 'put',
      path: '/v1/settings/routing',
      tag,
      summary: 'Change routing settings',
      description:
        'Merges into the stored settings: a field left out keeps its value, a nested object merges field by field (`cache.exact` alone keeps `cache.semantic`), a list is replaced, and null returns a field to its default. The raw write (spec 4.5): a ladder under an unknown tier key is accepted and learns from zero, with an `x-optimizer-warning` header naming it (on every read and write while it is stored); the SDK and the web app refuse it.',
      answer: 'The effective settings after the write.',
    },
    graphql: {
      name: 'setRoutingSettings',
      inputArg: mergeInput('RoutingSettingsInput', 'routing settings', '/v1/settings/routing'),
      inputTypes: { exploration: 'ExplorationBudgetInput', cache: 'CacheSettingsInput' },
      inputDescriptions: { ladders: 'Tier name → models, cheapest first.' },
    },
  }),
  providerKeys: capability({
    auth: 'control',
    output: z.array(ProviderKey),
    run: listProviderKeys,
    rest: { method: 'get', path: '/v1/settings/provider-keys', list: true, tag, summary: 'Providers with a stored key (never the key)', answer: 'One entry per provider.' },
    graphql: { name: 'providerKeys' },
  }),
  putProviderKey: capability({
    auth: 'control',
    input: putProviderKeyInput,
    output: ProviderKeyState,
    run: putKey,
    rest: { method: 'put', path: '/v1/settings/provider-keys/:provider', tag, summary: "Store a provider's key", description: 'Sealed at rest; Production runs on stored keys.', answer: 'Stored.' },
    graphql: { name: 'putProviderKey', description: 'Stores (sealed) a provider key; production runs on stored keys.' },
  }),
  removeProviderKey: capability({
    auth: 'control',
    input: providerRef,
    output: ProviderKeyState,
    run: removeKey,
    rest: { method: 'delete', path: '/v1/settings/provider-keys/:provider', status: 204, tag, summary: "Remove a provider's stored key", answer: 'Removed.', errors: ['not_found'] },
    graphql: { name: 'removeProviderKey' },
  }),
  capture: capability({
    auth: 'control',
    output: CaptureSettings,
    run: captureSettings,
    rest: { method: 'get', path: '/v1/settings/capture', tag, summary: 'Content capture and retention', answer: 'The settings.' },
    graphql: { name: 'captureSettings' },
  }),
  setCapture: capability({
    auth: 'control',
    input: captureSettingsPatch,
    output: CaptureSettings,
    run: putCaptureSettings,
    rest: { method: 'put', path: '/v1/settings/capture', tag, summary: 'Change content capture and retention', description: merges, answer: 'The settings.' },
    graphql: { name: 'setCaptureSettings', inputArg: mergeInput('CaptureSettingsInput', 'capture settings', '/v1/settings/capture') },
  }),
  guard: capability({
    auth: 'control',
    output: GuardSettings,
    run: guardSettings,
    rest: { method: 'get', path: '/v1/settings/guard', tag, summary: 'PII redaction and injection policy', answer: 'The settings.' },
    graphql: { name: 'guardSettings' },
  }),
  setGuard: capability({
    auth: 'control',
    input: guardSettingsPatch,
    output: GuardSettings,
    run: putGuardSettings,
    rest: { method: 'put', path: '/v1/settings/guard', tag, summary: 'Change PII redaction and injection policy', description: merges, answer: 'The settings.' },
    graphql: { name: 'setGuardSettings', inputArg: mergeInput('GuardSettingsInput', 'guard settings', '/v1/settings/guard') },
  }),
  limits: capability({
    auth: 'control',
    output: RateLimits,
    run: rateLimits,
    rest: { method: 'get', path: '/v1/settings/limits', tag, summary: 'Rate limits: requests and tokens per minute', answer: "The tenant's and its keys' limits, and the platform's ceiling (null: none)." },
    graphql: { name: 'rateLimits' },
  }),
  setLimits: capability({
    auth: 'control',
    input: rateLimitSettingsPatch,
    output: RateLimits,
    run: putRateLimits,
    rest: {
      method: 'put',
      path: '/v1/settings/limits',
      tag,
      summary: 'Change rate limits (within the platform ceiling)',
      description:
        'Merges into the stored limits: a field left out keeps its value, null returns it to its default (no limit of its own), `keys` when sent replaces the list. A limit above the platform ceiling is 422 naming the field; a key that is not a live key of the tenant is 404. Past a limit, completions and embeddings answer 429 `rate_limited` with Retry-After.',
      answer: 'The limits as stored, with the ceiling.',
      errors: ['not_found'],
    },
    graphql: {
      name: 'setRateLimits',
      inputArg: mergeInput('RateLimitsInput', 'rate limits', '/v1/settings/limits', ' (no limit); keys, when sent, replace the list'),
      inputTypes: { tenant: 'RateWindowInput', keys: 'KeyRateLimitInput' },
      floats: true,
    },
  }),
  alerts: capability({
    auth: 'control',
    output: AlertSettings,
    run: alertSettings,
    rest: { method: 'get', path: '/v1/settings/alerts', tag: 'Alerts', summary: 'Alert settings and webhook endpoints', answer: 'The settings.' },
    graphql: { name: 'alertSettings' },
  }),
  setAlerts: capability({
    auth: 'control',
    input: alertSettingsPatch,
    output: AlertSettings,
    run: putAlertSettings,
    rest: { method: 'put', path: '/v1/settings/alerts', tag: 'Alerts', summary: 'Change email, spend cap, thresholds and events', description: merges, answer: 'The settings.' },
    graphql: { name: 'setAlertSettings', inputArg: mergeInput('AlertSettingsInput', 'alert settings', '/v1/settings/alerts') },
  }),
  createWebhook: capability({
    auth: 'control',
    input: createWebhookRequest,
    output: WebhookEndpointSecret,
    run: createWebhook,
    rest: { method: 'post', path: '/v1/settings/alerts/webhooks', status: 201, tag: 'Alerts', summary: 'Add a webhook endpoint', description: 'The signing secret is in this answer only.', answer: 'The endpoint and its secret.' },
    graphql: { name: 'createAlertWebhook' },
  }),
  rotateWebhook: capability({
    auth: 'control',
    input: webhookRef,
    output: WebhookEndpointSecret,
    run: rotateWebhook,
    rest: { method: 'post', path: '/v1/settings/alerts/webhooks/:id/rotate', tag: 'Alerts', summary: "Rotate a webhook endpoint's signing secret", answer: 'The endpoint and its new secret.', errors: ['not_found'] },
    graphql: { name: 'rotateAlertWebhook' },
  }),
  removeWebhook: capability({
    auth: 'control',
    input: webhookRef,
    output: RemovedWebhookEndpoint,
    run: removeWebhook,
    rest: { method: 'delete', path: '/v1/settings/alerts/webhooks/:id', status: 204, tag: 'Alerts', summary: 'Remove a webhook endpoint', answer: 'Removed.', errors: ['not_found'] },
    graphql: { name: 'removeAlertWebhook' },
  }),
};
