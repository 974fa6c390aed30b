// What the settings capabilities answer: the routing settings in effect, stored provider keys
// (never the key), capture, guard, rate limits and alerts, each topic's fields as REST sends
// them. The enums are the shared write schemas' own, named here for GraphQL and OpenAPI.
import { z } from 'zod';
import { alertSettings, captureSettings, guardSettings, injectionPolicy, piiKind, routingSettingsView, routingSettingsWrite } from '@optimizer/schema';
import { asFloat, graphqlName, named, nullableOnGraphQL, time } from '../shapes.ts';

const view = routingSettingsView.shape;
const write = routingSettingsWrite.shape;

// the view's enums and the write's are two zod instances of each: one GraphQL enum
named('RoutingMode', view.mode);
named('RoutingTiebreak', view.tiebreak);
named('LearningMode', view.learning_mode);
named('FailoverScope', view.failover, '`same_model`: a pinned model fails over only to the same model on another vendor; `any`: also to the catalog\'s equivalent models.');
graphqlName('RoutingMode', write.mode.unwrap());
graphqlName('RoutingTiebreak', write.tiebreak.unwrap());
graphqlName('LearningMode', write.learning_mode.unwrap());
graphqlName('FailoverScope', write.failover.unwrap());

const ExplorationBudget = named('ExplorationBudget', nullableOnGraphQL(view.exploration));
const CacheSettings = named('CacheSettings', nullableOnGraphQL(view.cache));

export const RoutingSettings = named(
  'RoutingSettings',
  nullableOnGraphQL(
    routingSettingsView
      .extend({ exploration: ExplorationBudget, cache: CacheSettings })
      .describe('The effective routing settings: the defaults filled in; a null default depends on the call (docs/routing-settings.md).'),
  ),
);

export const ProviderKey = named('ProviderKey', z.object({ provider: z.string(), key_set: z.literal(true), updated_at: time() }).describe('A provider with a stored key of the tenant; never the key.'));

export const ProviderKeyState = named('ProviderKeyState', z.object({ provider: z.string(), key_set: z.boolean() }));

const capture = captureSettings.shape;
const CaptureContent = named(
  'CaptureContent',
  capture.content.unwrap(),
  '`none`: no recording; `metadata`: who, when, which model, sizes and status; `full`: the request after the guard and the stored response.',
);

export const CaptureSettings = named(
  'CaptureSettings',
  z.object({
    content: CaptureContent,
    retention_days: capture.retention_days.describe('Recordings older than this are deleted.'),
    redact_pii: capture.redact_pii.describe('PII is masked in what is kept.'),
  }),
);

named('PiiKind', piiKind);
named('InjectionPolicy', injectionPolicy, '`allow`: not looked for; `flag`: recorded on the call; `block`: refused before any vendor call.');

export const GuardSettings = named(
  'GuardSettings',
  z.object({
    redact_pii: guardSettings.shape.redact_pii,
    pii_kinds: guardSettings.shape.pii_kinds.describe('What is redacted when redactPii is on.'),
    injection: guardSettings.shape.injection,
  }),
);

/** A limit per minute: whole, but GraphQL's 32-bit Int is too small for tokens. */
const perMinute = () => asFloat(z.number().int()).nullable();

const RateWindow = named('RateWindow', z.object({ requests_per_minute: perMinute(), tokens_per_minute: perMinute() }).describe('Requests and tokens per minute; null: no limit of its own.'));

const KeyRateLimit = named(
  'KeyRateLimit',
  z.object({ key_id: z.string(), requests_per_minute: perMinute(), tokens_per_minute: perMinute() }).describe("One key's own limits, counted apart from its siblings'."),
);

export const RateLimits = named(
  'RateLimits',
  z.object({
    tenant: RateWindow.describe('Every key of the tenant together.'),
    keys: z.array(KeyRateLimit),
    ceiling: RateWindow.describe("The platform's ceiling (null: none); a tenant without limits of its own is held to it."),
  }),
);

const webhookFields = {
  id: z.string(),
  url: z.string().meta({ format: 'uri' }),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  created_at: time(),
};

const WebhookEndpoint = named('WebhookEndpoint', z.object(webhookFields).describe('A webhook endpoint of the alerts; never its secret.'));

export const WebhookEndpointSecret = named(
  'WebhookEndpointSecret',
  z.object({ ...webhookFields, secret: z.string() }).describe('A webhook endpoint with its signing secret: shown in this answer only.'),
);

export const RemovedWebhookEndpoint = named('RemovedWebhookEndpoint', z.object({ id: z.string(), removed: z.literal(true) }));

const alerts = alertSettings.shape;
export const AlertSettings = named(
  'AlertSettings',
  z.object({
    spend_cap_usd: alerts.spend_cap_usd.describe("The month's spend cap; null: no cap, so no spend alerts."),
    spend_thresholds: alerts.spend_thresholds.describe('Percentages of the cap that each alert once a month.'),
    wallet_low_usd: alerts.wallet_low_usd.describe('The wallet balance whose crossing downwards alerts wallet_low; null: the auto top-up threshold, if set.'),
    email_to: alerts.email_to,
    events: alerts.events.describe('spend_cap.threshold, drift, failover, resettled, wallet_low, auto_topup_failed.'),
    webhooks: z.array(WebhookEndpoint),
  }),
);
