// The gateway's configuration, read once at boot from the environment through one
// schema. An unknown OPTIMIZER_* variable or a malformed value stops the boot with a
// message that names it and says how to fix it.
import { z } from 'zod';

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

export const configSchema = z
  .object({
    PORT: port.default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
    REDIS_URL: url(['redis:', 'rediss:']).optional(),
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
    BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024),
    /** From a request's first byte until its head is read, absolute (node:http's headersTimeout). */
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
    /** From a request's first byte until its body is read, absolute (node:http's requestTimeout). */
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(300_000),
    /** `off` sends every request through node:http and Fastify, the socket path's reference. */
    FAST_PATH: z.enum(['on', 'off']).default('on'),
    METER_FLUSH_MS: z.coerce.number().int().positive().default(200),
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
    /** Share of semantic hits the judge checks while their step is still exploring. */
    SEMANTIC_CHECK_RATE: z.coerce.number().min(0).max(1).default(0.2),
  })
  .strict()
  .refine((c) => c.HTTP_HEADERS_TIMEOUT_MS <= c.HTTP_REQUEST_TIMEOUT_MS, {
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS (the head is part of the request)',
  });

export type Config = z.infer<typeof configSchema>;

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
    return `${name}=${JSON.stringify(picked[name] ?? '')} is invalid: ${i.message}`;
  });
  throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
}
