// The gateway's configuration, read once at boot from the environment through one
// schema. An unknown OPTIMIZER_* variable or a malformed value stops the boot with a
// message that names it and says how to fix it.
import { z } from 'zod';
import { parseAllowEntry } from './security/address-guard.ts';

const port = z.coerce.number().int().min(0).max(65535);
const url = (protocols: string[]) =>
  z.string().refine((v) => {
    try {
      return protocols.includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, `must be a URL starting with ${protocols.join(' or ')}//`);
/** A vendor base URL from the environment: http(s), with no credentials, query or fragment (the vendor's path is appended to it). */
const baseUrl = url(['http:', 'https:']).refine((v) => {
  try {
    const u = new URL(v);
    return u.username === '' && u.password === '' && u.search === '' && u.hash === '' && !/[?#]/.test(v);
  } catch {
    return false;
  }
}, 'must not carry credentials (user:password@), a query string or a fragment: set the key in its own variable');
const masterKey = z
  .string()
  .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)');

/** OTLP/HTTP with JSON bodies is what the gateway's exporter speaks. */
const otlpProtocol = z.enum(['http/json'], { error: 'must be http/json (the gateway exports OTLP/HTTP as JSON; gRPC and protobuf are not built in)' });

/** `OTEL_EXPORTER_OTLP_HEADERS`: `a=1,b=x%20y` as the OpenTelemetry spec writes it. */
function parseOtlpHeaders(v: string, ctx: z.RefinementCtx): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of v.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    const name = eq > 0 ? pair.slice(0, eq).trim() : '';
    let value = '';
    try {
      value = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      /* reported below */
    }
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || value === '' || /[\r\n\0]/.test(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be name=value pairs, comma-separated, with URL-encoded values (e.g. api-key=abc%20def)' });
      return out;
    }
    out[name.toLowerCase()] = value;
  }
  return out;
}

export const configSchema = z
  .object({
    PORT: port.default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
    REDIS_URL: url(['redis:', 'rediss:']).optional(),
    REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1 to 64 letters, digits or _ . : -').default('optimizer:'),
    ADMIN_KEY: z.string().min(24, 'must be at least 24 characters').optional(),
    OPTIMIZER_MASTER_KEY: masterKey.optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    OPENAI_API_KEY: z.string().min(1).optional(),
    OPENAI_BASE_URL: baseUrl.optional(),
    ANTHROPIC_API_KEY: z.string().min(1).optional(),
    ANTHROPIC_BASE_URL: baseUrl.optional(),
    GEMINI_API_KEY: z.string().min(1).optional(),
    GEMINI_BASE_URL: baseUrl.optional(),
    AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
    AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    AWS_SESSION_TOKEN: z.string().min(1).optional(),
    AWS_REGION: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1').default('us-east-1'),
    BEDROCK_BASE_URL: baseUrl.optional(),
    MISTRAL_API_KEY: z.string().min(1).optional(),
    MISTRAL_BASE_URL: baseUrl.optional(),
    GROQ_API_KEY: z.string().min(1).optional(),
    GROQ_BASE_URL: baseUrl.optional(),
    TOGETHER_API_KEY: z.string().min(1).optional(),
    TOGETHER_BASE_URL: baseUrl.optional(),
    DEEPSEEK_API_KEY: z.string().min(1).optional(),
    DEEPSEEK_BASE_URL: baseUrl.optional(),
    XAI_API_KEY: z.string().min(1).optional(),
    XAI_BASE_URL: baseUrl.optional(),
    FIREWORKS_API_KEY: z.string().min(1).optional(),
    FIREWORKS_BASE_URL: baseUrl.optional(),
    OPENROUTER_API_KEY: z.string().min(1).optional(),
    OPENROUTER_BASE_URL: baseUrl.optional(),
    OLLAMA_BASE_URL: baseUrl.optional(),
    VLLM_API_KEY: z.string().min(1).optional(),
    VLLM_BASE_URL: baseUrl.optional(),
    AZURE_OPENAI_API_KEY: z.string().min(1).optional(),
    AZURE_OPENAI_BASE_URL: baseUrl.optional(),
    AZURE_OPENAI_API_VERSION: z.string().min(1).default('2024-10-21'),
    /** Addresses admin-registered providers may reach: `any` (design §11: a self-hosted vLLM) or `public-only`. */
    CUSTOM_PROVIDER_ADDRESS_POLICY: z.enum(['any', 'public-only']).default('any'),
    /** The largest body the data plane (chat completions, embeddings) reads, and a bound on every other route's limit (below, docs/decisions.md). */
    BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024),
    /** The largest body a route without a key reads (signup, login, the email confirmation, the estimate): checked from Content-Length and while it streams. */
    PUBLIC_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024, 'must be at least 1024 (1 KiB)').max(1024 * 1024, 'must be at most 1048576 (1 MiB)').default(8 * 1024),
    /** The largest payment webhook body read (Stripe's events are a few KB). */
    WEBHOOK_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024, 'must be at least 1024 (1 KiB)').max(16 * 1024 * 1024, 'must be at most 16777216 (16 MiB)').default(64 * 1024),
    /** The largest body of a control-plane or admin route (REST, tRPC, GraphQL), read only once the key or session is checked. */
    CONTROL_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024, 'must be at least 1024 (1 KiB)').max(256 * 1024 * 1024, 'must be at most 268435456 (256 MiB)').default(1024 * 1024),
    /** Abuse limits per client address on the doors without a key (docs/decisions.md, "Hostile input"); counted in Redis when it is configured. */
    DOOR_SIGNUP_PER_HOUR: z.coerce.number().int().min(1).max(1e9).default(10),
    DOOR_LOGIN_PER_MINUTE: z.coerce.number().int().min(1).max(1e9).default(10),
    DOOR_ESTIMATE_PER_MINUTE: z.coerce.number().int().min(1).max(1e9).default(60),
    DOOR_ADMIN_PER_MINUTE: z.coerce.number().int().min(1).max(1e9).default(300),
    /** Requests with a wrong tenant or admin key one address may make per minute; past it every unknown key from it gets 429 until the minute ends. */
    DOOR_BAD_KEY_PER_MINUTE: z.coerce.number().int().min(1).max(1e9).default(20),
    /** From a request's first byte until its head is read, absolute (node:http's headersTimeout). */
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
    /** From a request's first byte until its body is read, absolute (node:http's requestTimeout). */
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(300_000),
    /** `off` sends every request through node:http and Fastify, the socket path's reference. */
    FAST_PATH: z.enum(['on', 'off']).default('on'),
    METER_FLUSH_MS: z.coerce.number().int().positive().default(200),
    /** Routed calls' learning after the answer (probes, judge grades): jobs run at once per replica, and jobs that may wait; past both, learning is dropped, never an answer. */
    LEARNING_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(8),
    LEARNING_QUEUE_MAX: z.coerce.number().int().min(0).max(1_000_000).default(1_000),
    /** The longest one call's learning may take before it is aborted (what it spent is still metered). */
    LEARNING_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(300_000),
    /** At shutdown, how long learning under way may finish before it is aborted and metered as far as it got. */
    LEARNING_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
    /** Seeds the routing's random draws (trials, probe sampling, judge cross-checks), so a benchmark replaying the same calls in order makes the same decisions; unset (the default), they come from the system's generator. */
    ROUTING_SEED: z.coerce.number().int().min(0).max(2 ** 32 - 1).optional(),
    /** How often the retention sweep deletes recordings past their tenant's retention (default hourly). */
    RECORDING_SWEEP_MS: z.coerce.number().int().min(1_000, 'must be at least 1000 (1 s)').max(24 * 3_600_000, 'must be at most 86400000 (a day)').default(3_600_000),
    /** How long calls and their activity are kept (whole months are dropped once past it); generous by default, and never under two months, which billing's statements and the month's budget read. */
    CALL_RETENTION_DAYS: z.coerce.number().int().min(62, 'must be at least 62 (billing reads the last two months)').max(36_500, 'must be at most 36500 (100 years)').default(730),
    UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    UPSTREAM_FIRST_BYTE_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
    UPSTREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
    UPSTREAM_TOTAL_TIMEOUT_MS: z.coerce.number().int().positive().default(600_000),
    /** The largest vendor response body the gateway reads (a stream's included); past it the call fails with 502. */
    UPSTREAM_MAX_RESPONSE_BYTES: z.coerce
      .number()
      .int()
      .min(64 * 1024, 'must be at least 65536 (64 KiB)')
      .max(1024 * 1024 * 1024, 'must be at most 1073741824 (1 GiB)')
      .default(64 * 1024 * 1024),
    UPSTREAM_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
    CIRCUIT_FAILURES: z.coerce.number().int().min(1).default(5),
    CIRCUIT_COOLDOWN_MS: z.coerce.number().int().positive().default(30_000),
    /** Overrides the semantic cache's packaged all-MiniLM-L6-v2: a directory with onnx/model.onnx and tokenizer.json. */
    EMBEDDING_MODEL_DIR: z.string().min(1).optional(),
    /** How long a semantic lookup waits for its question's embedding before it counts as a miss. */
    SEMANTIC_EMBED_TIMEOUT_MS: z.coerce.number().int().positive().default(250),
    /** How long a dashboard session lasts after login (design §7); the session ends sooner at logout. */
    SESSION_TTL_MS: z.coerce.number().int().min(60_000).max(30 * 24 * 3_600_000).default(12 * 3_600_000),
    /** Trust X-Forwarded-Proto/-Host from the proxy in front (e.g. a TLS terminator); off unless that proxy sets them. */
    TRUST_PROXY: z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1'),
    /** Where alert emails go out (smtp://user:pass@host:port or smtps://…); without it the email channel is refused on write. */
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be smtp://… or smtps://…' }).optional(),
    ALERT_EMAIL_FROM: z.email().default('alerts@optimizer.invalid'),
    /** Addresses alert webhooks may reach: `public-only` (design §11), or `any` for a deployment (or a test) that delivers inside its own network. */
    WEBHOOK_ADDRESS_POLICY: z.enum(['any', 'public-only']).default('public-only'),
    /**
     * Addresses or CIDR blocks (comma-separated, e.g. `10.1.2.0/24,127.0.0.1`) that tenant-directed calls
     * (connections, webhooks) may reach although they are not public: an operator's choice for a deployment
     * (or a test) whose tenants' targets live in its own network. Empty by default; no tenant setting widens it.
     */
    OUTBOUND_ALLOW_LIST: z
      .string()
      .default('')
      .transform((v, ctx) => {
        const entries = v.split(',').map((e) => e.trim()).filter((e) => e !== '');
        for (const e of entries) {
          try {
            parseAllowEntry(e);
          } catch (err) {
            ctx.addIssue({ code: 'custom', message: `${(err as Error).message}; write addresses or CIDR blocks, comma-separated` });
          }
        }
        return entries;
      }),
    /** Managed-agent runs a tenant may start in a calendar month (UTC); the next one answers 402 run_cap_reached. */
    MANAGED_RUN_CAP: z.coerce.number().int().min(0).max(1_000_000).default(100),
    /** One call to a connection (an executed action): connect to last byte. */
    CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    /** How often a replica looks for managed runs left without a runner (a replica that stopped mid-run). */
    MANAGED_RUN_SWEEP_MS: z.coerce.number().int().min(50).max(3_600_000).default(5_000),
    /** How long a runner holds a managed run without renewing it: a killed replica's runs are taken over this long after its last renewal. */
    MANAGED_RUN_LEASE_SECONDS: z.coerce.number().int().min(2).max(3_600).default(30),
    /** How often a replica looks for due alert deliveries (the outbox). */
    ALERT_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
    /** How often a replica compares each capped tenant's month-to-date spend with its thresholds. */
    ALERT_SPEND_CHECK_MS: z.coerce.number().int().min(50).max(3_600_000).default(30_000),
    /** One delivery attempt's limit (connect to last byte). */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** Share of semantic hits the judge checks while their step is still exploring. */
    SEMANTIC_CHECK_RATE: z.coerce.number().min(0).max(1).default(0.2),
    /** The platform's share of what a call saved, charged per call and shown on statements; below 1, so a fee never exceeds the saving. */
    BILLING_FEE_RATE: z.coerce.number().min(0).max(0.99, 'must be below 1 (the fee is a share of the saving)').default(0.2),
    /**
     * Free credit a new tenant gets for tuning on the platform's keys, in USD (docs/decisions.md, Billing):
     * the starting value of the admin's signup setting (PUT /v1/admin/settings/signup), which then rules.
     */
    BILLING_DEV_ALLOWANCE_USD: z.coerce.number().min(0).max(10_000).default(25),
    /**
     * The price of a model the catalog does not list, on the platform's keys: `off` (such a model is
     * served only on the tenant's own key; else 400 unknown_model), or `<input>,<output>` USD per
     * million tokens. The admin's PUT /v1/admin/unknown-model-price overrides it.
     */
    UNKNOWN_MODEL_PRICE: z
      .string()
      .regex(/^(off|\d+(\.\d+)?,\d+(\.\d+)?)$/, 'must be off, or <input>,<output> USD per million tokens (e.g. 2.5,10)')
      .default('off'),
    /** How often subscriptions are swept (lapsed, renewed without a processor, paused past their grace) and closed periods' fees invoiced. */
    BILLING_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    /** The managed Production plan: its monthly price per workflow in USD, billed as a Stripe subscription. */
    MANAGED_PLAN_PRICE_USD: z.coerce.number().min(0.5, 'Stripe charges at least 0.50 USD').max(100_000).default(49),
    /** Managed-agent runs a month each subscribed workflow adds to the tenant's run cap (MANAGED_RUN_CAP is the cap without one). */
    MANAGED_PLAN_RUN_CAP: z.coerce.number().int().min(0).max(1_000_000).default(1000),
    /** How long a past-due subscription's production goes on after its first failed payment, in seconds; then calls answer 402 subscription_required until it is paid. */
    BILLING_GRACE_S: z.coerce.number().int().min(0).max(90 * 24 * 3600).default(7 * 24 * 3600),
    /**
     * The platform's ceiling on a tenant's rate limits (and on each key's): requests and tokens per
     * minute. A tenant sets its own limits at or below it (PUT /v1/settings/limits); one that sets
     * none is held to the ceiling. Unset: no ceiling, and a tenant without limits is not counted.
     */
    RATE_LIMIT_CEILING_RPM: z.coerce.number().int('must be a whole number of requests per minute').min(1).max(1e12).optional(),
    RATE_LIMIT_CEILING_TPM: z.coerce.number().int('must be a whole number of tokens per minute').min(1).max(1e12).optional(),
    /** Stripe's secret API key (sk_test_… or sk_live_…); without it top-ups answer 503. */
    STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, 'must be a Stripe secret key (sk_test_… or sk_live_…)').optional(),
    /** Webhook signing secrets (whsec_…), comma-separated: two during a rotation. */
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .refine((v) => v.split(',').every((x) => /^whsec_[A-Za-z0-9+/=_-]+$/.test(x.trim())), 'must be one or more whsec_… secrets, comma-separated')
      .optional(),
    /** Where the Stripe SDK connects (a local fake in tests); Stripe's own API when unset. */
    STRIPE_API_URL: url(['http:', 'https:']).optional(),
    /** How old a webhook's signed timestamp may be, in seconds. */
    STRIPE_WEBHOOK_TOLERANCE_S: z.coerce.number().int().min(1).max(3600).default(300),
    /** Where Stripe's checkout returns the browser after a top-up (the dashboard's billing page). */
    PUBLIC_URL: url(['http:', 'https:']).default('http://127.0.0.1:8080'),
    // OpenTelemetry, by the SDK's own variable names (telemetry/settings.ts): off unless an OTLP endpoint is set.
    /** The collector's base URL; spans go to `<endpoint>/v1/traces`. */
    OTEL_EXPORTER_OTLP_ENDPOINT: url(['http:', 'https:']).optional(),
    /** The full URL for spans, used as it is (overrides the base URL for traces). */
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(['http:', 'https:']).optional(),
    /** Headers on every export: `name=value` pairs, comma-separated, values URL-encoded (e.g. an API key). */
    OTEL_EXPORTER_OTLP_HEADERS: z.string().transform((v, ctx) => parseOtlpHeaders(v, ctx)).optional(),
    OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.optional(),
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
    /** One export's limit, in ms. */
    OTEL_EXPORTER_OTLP_TIMEOUT: z.coerce.number().int().min(100).max(120_000).default(10_000),
    OTEL_SERVICE_NAME: z.string().min(1).default('optimizer-gateway'),
    /** `true` turns OpenTelemetry off whatever else is set. */
    OTEL_SDK_DISABLED: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
    /** `none` turns span export off; `otlp` (the only exporter) needs an endpoint. */
    OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none'], { error: 'must be otlp or none (the gateway exports spans over OTLP/HTTP only)' }).optional(),
    /** Delay between two batch exports, in ms. */
    OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(600_000).default(5_000),
  })
  .strict()
  .refine((c) => c.HTTP_HEADERS_TIMEOUT_MS <= c.HTTP_REQUEST_TIMEOUT_MS, {
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS (the head is part of the request)',
  })
  .refine((c) => c.OTEL_TRACES_EXPORTER !== 'otlp' || c.OTEL_SDK_DISABLED || c.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined, {
    path: ['OTEL_TRACES_EXPORTER'],
    message: 'otlp needs OTEL_EXPORTER_OTLP_ENDPOINT (the collector, e.g. http://127.0.0.1:4318) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  })
  .refine((c) => (c.STRIPE_SECRET_KEY === undefined) === (c.STRIPE_WEBHOOK_SECRET === undefined), {
    path: ['STRIPE_WEBHOOK_SECRET'],
    message: 'set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET together (top-ups are credited only by verified webhooks)',
  });

export type Config = z.infer<typeof configSchema>;

/** Variables whose value may hold a credential: a boot error names them without echoing it. */
const hiddenValues = new Set(['OTEL_EXPORTER_OTLP_HEADERS']);

/** Variables we own: anything with these prefixes that the schema does not know is a typo. */
const ownedPrefixes = ['OPTIMIZER_'];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const keys = Object.keys(configSchema.shape);
  const picked: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || v === '') continue;
    if (keys.includes(k)) picked[k] = v;
    else if (ownedPrefixes.some((p) => k.startsWith(p))) picked[k] = v;
  }
  const parsed = configSchema.safeParse(picked);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => {
    if (i.code === 'unrecognized_keys') {
      return `unknown setting ${i.keys.join(', ')}: remove it or check its spelling (known: ${keys.join(', ')})`;
    }
    const name = i.path.join('.');
    const shown = hiddenValues.has(name) ? '(value hidden)' : JSON.stringify(picked[name] ?? '');
    return `${name}=${shown} is invalid: ${i.message}`;
  });
  throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
}
