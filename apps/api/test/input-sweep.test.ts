// Hostile input over every operation (issue 30, acceptance 2): docs/openapi.json is loaded,
// each operation's request is generated from its own schemas, and a bounded set of
// mutations is sent to it: wrong types, missing and extra fields, NUL and lone surrogates in
// every path, query and body string, 1 MB strings, negative and huge numbers, `%FF` and a
// broken UTF-8 sequence in the path, a 1 MB URL. Nothing may answer 5xx, and every error is
// the catalogue's envelope {error:{message,type,code,param}} with a catalogued code.
// Every vendor base URL is a loopback mock, Stripe is a loopback mock, and host names
// resolve through a stub that knows none, so no call leaves 127.0.0.1.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, startStripeMock, type MockVendor, type StripeMock } from '@optimizer/mock-providers';
import { errorCatalogue } from '../src/errors.ts';
import { toApiError } from '../src/failures/to-api-error.ts';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';
import { gql, trpcClient, trpcFailure } from './support/doors.ts';

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  items?: Schema;
  minItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  propertyNames?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: Schema;
}
interface Operation {
  operationId?: string;
  security?: Record<string, unknown>[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

const doc = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const MB = 1024 * 1024;
const BIG = 'x'.repeat(MB);
const NUL = 'a\u0000b';
const SURROGATE = 'a\ud800b';

/**
 * Operations not swept with generated bodies, and why. Their path and query are still
 * swept (they have none that reach a vendor).
 */
const BODY_NOT_SWEPT: Record<string, string> = {};

function deref(s: Schema | undefined): Schema {
  let cur = s ?? {};
  for (let i = 0; cur.$ref && i < 10; i++) cur = doc.components.schemas[cur.$ref.replace('#/components/schemas/', '')] ?? {};
  if (cur.allOf) return Object.assign({}, ...cur.allOf.map(deref)) as Schema;
  return cur;
}

/** The variant a generated value follows (the first one that is not null). */
function variant(s: Schema): Schema {
  const alts = s.anyOf ?? s.oneOf;
  if (!alts) return s;
  return deref(alts.find((a) => deref(a).type !== 'null') ?? alts[0]);
}

function typeOf(s: Schema): string | undefined {
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null');
  if (s.type) return s.type;
  if (s.properties) return 'object';
  return undefined;
}

let loopbackUrl = 'http://127.0.0.1:9/hook';
let vendorUrl = 'http://127.0.0.1:9/v1';
/** A string the schema takes: an enum value, a well-known format, or the first candidate its pattern and lengths allow. */
function sampleString(s: Schema, name: string): string {
  if (s.enum?.length) return String(s.enum[0]);
  if (typeof s.default === 'string') return s.default;
  if (s.format === 'email' || /email/.test(name)) return `sweep-${randomBytes(4).toString('hex')}@example.com`;
  if (s.format === 'date') return '2025-01-01';
  if (s.format === 'date-time') return '2025-01-01T00:00:00Z';
  if (/base_url/.test(name)) return vendorUrl;
  if (s.format === 'uri' || /url/.test(name)) return loopbackUrl;
  const candidates = /model/.test(name) ? ['gpt-4.1-mini', 'sweep'] : /provider/.test(name) ? ['openai'] : ['sweep', 'openai', 'gpt-4.1-mini', 'a1', 'sweep-item', '2025-01-01', 'abc123', 'x'];
  const fits = (c: string) => (!s.pattern || new RegExp(s.pattern, 'u').test(c)) && c.length >= (s.minLength ?? 0) && c.length <= (s.maxLength ?? Infinity);
  return candidates.find(fits) ?? 'x'.repeat(Math.max(1, s.minLength ?? 1));
}

function sampleNumber(s: Schema, integer: boolean): number {
  if (s.enum?.length) return s.enum[0] as number;
  if (typeof s.default === 'number') return s.default;
  const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
  const hi = s.maximum ?? lo + 10;
  const v = Math.min(hi, Math.max(lo, 1));
  return integer ? Math.ceil(v) : v;
}

/** A value that follows the schema, every property filled (to reach past the first check). */
function sample(raw: Schema | undefined, name = '', depth = 0): unknown {
  const s = variant(deref(raw));
  if (s.const !== undefined) return s.const;
  switch (typeOf(s)) {
    case 'string':
      return sampleString(s, name);
    case 'integer':
      return sampleNumber(s, true);
    case 'number':
      return sampleNumber(s, false);
    case 'boolean':
      return typeof s.default === 'boolean' ? s.default : true;
    case 'array':
      return depth > 4 ? [] : Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items, name, depth + 1));
    case 'object': {
      if (depth > 4) return {};
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(s.properties ?? {})) out[k] = sample(p, k, depth + 1);
      if (!s.properties && typeof s.additionalProperties === 'object') out[mapKey(s)] = sample(s.additionalProperties, 'sweep', depth + 1);
      return out;
    }
    default:
      return s.enum?.[0] ?? 'sweep';
  }
}

/** The key a generated map uses: the first its key schema allows. */
function mapKey(s: Schema): string {
  const names = s.propertyNames ? deref(s.propertyNames) : {};
  return names.enum?.length ? String(names.enum[0]) : 'sweep';
}

/** A leaf (or map) of a body: its path and schema. */
interface Field {
  path: string[];
  schema: Schema;
  kind: string;
  /** An entry of a map keyed by the tenant's names (its key is swept too). */
  mapEntry: boolean;
}

function fields(raw: Schema | undefined, path: string[] = [], depth = 0, out: Field[] = [], mapEntry = false): Field[] {
  const s = variant(deref(raw));
  const kind = typeOf(s) ?? 'any';
  if (path.length > 0) out.push({ path, schema: s, kind, mapEntry });
  if (depth > 4) return out;
  if (kind === 'object') {
    for (const [k, p] of Object.entries(s.properties ?? {})) fields(p, [...path, k], depth + 1, out);
    if (!s.properties && typeof s.additionalProperties === 'object') fields(s.additionalProperties, [...path, mapKey(s)], depth + 1, out, true);
  } else if (kind === 'array') fields(s.items, [...path, '0'], depth + 1, out);
  return out;
}

function withValue(body: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  let cur: Record<string, unknown> = copy;
  for (const step of path.slice(0, -1)) {
    if (typeof cur[step] !== 'object' || cur[step] === null) cur[step] = /^\d+$/.test(step) ? [] : {};
    cur = cur[step] as Record<string, unknown>;
  }
  cur[path.at(-1)!] = value;
  return copy;
}

function withKey(body: unknown, path: string[], key: string): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  let cur: Record<string, unknown> = copy;
  for (const step of path.slice(0, -1)) cur = cur[step] as Record<string, unknown>;
  const last = path.at(-1)!;
  cur[key] = cur[last];
  delete cur[last];
  return copy;
}

/** A bounded set of hostile bodies for one operation's request schema. */
function bodyMutations(schema: Schema | undefined): { label: string; body: string }[] {
  const base = sample(schema);
  const out: { label: string; body: string }[] = [
    { label: 'sample', body: JSON.stringify(base) },
    { label: 'empty object', body: '{}' },
    { label: 'array', body: '[]' },
    { label: 'string', body: '"sweep"' },
    { label: 'null', body: 'null' },
    { label: 'number', body: '-1' },
    { label: 'broken json', body: '{"a":' },
    { label: 'extra field', body: JSON.stringify({ ...(typeof base === 'object' && base !== null ? base : {}), sweep_extra: 1 }) },
  ];
  let big = 0;
  for (const f of fields(schema).slice(0, 40)) {
    const at = f.path.join('.');
    const put = (label: string, value: unknown) => out.push({ label: `${at}: ${label}`, body: JSON.stringify(withValue(base, f.path, value)) });
    put('null', null);
    put('wrong type', f.kind === 'string' ? 12345 : f.kind === 'object' ? 'sweep' : f.kind === 'array' ? { a: 1 } : 'sweep');
    if (f.kind === 'string' || f.kind === 'any') {
      put('NUL', NUL);
      put('lone surrogate', SURROGATE);
      if (big++ < 4) put('1 MB', BIG);
    } else if (f.kind === 'number' || f.kind === 'integer') {
      put('negative', -1);
      put('huge', 1e308);
      put('-huge', -1e308);
      put('beyond 2^63', 2 ** 64);
      put('fraction', 0.5);
    } else if (f.kind === 'array') {
      put('array of NUL', [NUL]);
    } else if (f.kind === 'object' && !f.schema.properties) {
      out.push({ label: `${at}: NUL key`, body: JSON.stringify(withValue(base, f.path, { [NUL]: sample(f.schema.additionalProperties as Schema) })) });
    }
  }
  // map keys the tenant names (ladders, strengths): a NUL and a lone surrogate in the key
  for (const f of fields(schema)) {
    if (!f.mapEntry) continue;
    out.push({ label: `${f.path.join('.')}: NUL in key`, body: JSON.stringify(withKey(base, f.path, NUL)) });
    out.push({ label: `${f.path.join('.')}: lone surrogate in key`, body: JSON.stringify(withKey(base, f.path, SURROGATE)) });
  }
  return out;
}

/** Raw (already percent-encoded) path-parameter values. */
const PATH_VALUES: Record<string, string> = {
  NUL: '%00',
  'NUL inside': 'a%00b',
  'lone surrogate (UTF-8 of U+D800)': '%ED%A0%80',
  '%FF': '%FF',
  'truncated UTF-8': '%E2%82',
  '300 characters': 'p'.repeat(300),
  '1 MB URL': 'p'.repeat(MB),
  'dot segments': '..%2F..%2Fetc',
};
const QUERY_VALUES: Record<string, string> = {
  NUL: '%00',
  'NUL inside': 'a%00b',
  'lone surrogate (UTF-8 of U+D800)': '%ED%A0%80',
  '%FF': '%FF',
  'not a number': 'abc',
  negative: '-1',
  huge: '1e308',
  'beyond 2^63': '18446744073709551616',
  fraction: '0.5',
  empty: '',
  '1 MB': 'q'.repeat(MB),
  '10 KB': 'q'.repeat(10 * 1024),
};

interface Probe {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

interface Finding {
  probe: string;
  status: number;
  body: string;
}

const codes = new Set(Object.keys(errorCatalogue));
/** Each probe's status, by its label. */
const answered = new Map<string, number>();

/** Why an answer breaks the rule, or null when it keeps it. */
function violation(status: number, contentType: string, text: string): string | null {
  if (status >= 500) return `status ${status}`;
  if (status < 400) return null;
  if (!contentType.includes('json')) return `error answered as ${contentType || 'no content type'}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'error body is not JSON';
  }
  const e = (body as { error?: Record<string, unknown> }).error;
  if (!e || typeof e !== 'object') return 'no error object';
  if (typeof e.message !== 'string' || typeof e.type !== 'string' || typeof e.code !== 'string' || !('param' in e)) return 'envelope fields missing';
  if (!codes.has(e.code)) return `code ${e.code} is not in the catalogue`;
  if (e.param !== null && typeof e.param !== 'string') return 'param is neither a string nor null';
  return null;
}

async function send(gw: TestGateway, p: Probe): Promise<Finding | null> {
  try {
    const r = await fetch(`${gw.url}${p.url}`, { method: p.method, headers: p.headers, body: p.body, signal: AbortSignal.timeout(20_000) });
    const text = await r.text();
    answered.set(p.label, r.status);
    const why = violation(r.status, r.headers.get('content-type') ?? '', text);
    return why ? { probe: `${p.label}: ${why}`, status: r.status, body: text.slice(0, 300) } : null;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    // a 1 MB URL may be cut off by the server's head limit before the client has written it all
    if (p.url.length > 64 * 1024 && (cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET' || cause?.code === 'EPIPE')) return null;
    return { probe: `${p.label}: ${(err as Error).message} ${cause?.code ?? ''}`, status: 0, body: '' };
  }
}

async function runAll(gw: TestGateway, probes: Probe[], concurrency = 6): Promise<Finding[]> {
  const found: Finding[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < probes.length) {
        const p = probes[next++]!;
        const f = await send(gw, p);
        if (f) found.push(f);
      }
    }),
  );
  return found;
}

let gw: TestGateway;
let vendor: MockVendor;
let stripe: StripeMock;
let smtp: SmtpSink;
let tenant: { api_key: string; account_id: string; workflow_id: string };
const PLATFORM_KEY = 'sk-platform-sweep';
const VENDORS = ['OPENAI', 'ANTHROPIC', 'GEMINI', 'BEDROCK', 'MISTRAL', 'GROQ', 'TOGETHER', 'DEEPSEEK', 'XAI', 'FIREWORKS', 'OPENROUTER', 'OLLAMA', 'VLLM', 'AZURE_OPENAI'];

beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  stripe = await startStripeMock({ secretKey: 'sk_test_sweep1', secrets: ['whsec_sweep'] });
  smtp = await startSmtpSink();
  loopbackUrl = `${vendor.url}/hook`;
  vendorUrl = vendor.url;
  const env: Record<string, string> = {
    OPENAI_API_KEY: PLATFORM_KEY,
    ...stripe.gatewayEnv(),
    SMTP_URL: smtp.url,
    // stored URLs reach the loopback mock only; the stub resolver below answers no host name
    WEBHOOK_ADDRESS_POLICY: 'any',
    OUTBOUND_ALLOW_LIST: '127.0.0.1',
    CUSTOM_PROVIDER_ADDRESS_POLICY: 'public-only',
    MANAGED_RUN_CAP: '5',
    // 1 MB strings reach the control plane's handlers rather than stopping at its body limit
    CONTROL_BODY_LIMIT_BYTES: String(4 * MB),
  };
  for (const v of VENDORS) env[`${v}_BASE_URL`] = vendor.url;
  gw = await startGateway({
    env,
    hooks: {
      resolve: async (host) => {
        throw Object.assign(new Error(`the sweep resolves no host name (${host})`), { code: 'ENOTFOUND' });
      },
    },
  });
  tenant = await signup(gw);
});
afterAll(async () => {
  await gw?.close();
  await vendor?.close();
  await stripe?.close();
  await smtp?.close();
});

/** A real value for a path parameter, so the operation gets past its lookup to the body. */
function pathValue(path: string, name: string, schema: Schema | undefined): string {
  if (path.startsWith('/v1/admin/accounts/')) return tenant.account_id;
  if (path.startsWith('/v1/admin/catalog/')) return 'sweep-model';
  if (path.startsWith('/v1/admin/providers/')) return 'sweepvendor';
  if (name === 'id' && /^\/v1\/(workflows|agents|proxy-agents)\//.test(path)) return tenant.workflow_id;
  return encodeURIComponent(sampleString(deref(schema), name));
}

function probesFor(path: string, method: string, op: Operation): Probe[] {
  const admin = (op.security ?? []).some((s) => 'adminKey' in s);
  const headers = admin ? authed(gw.adminKey) : authed(tenant.api_key);
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const fill = (over: Record<string, string> = {}) => path.replace(/\{([^}]+)\}/g, (_m, n: string) => over[n] ?? pathValue(path, n, pathParams.find((p) => p.name === n)?.schema));
  const query = (over: Record<string, string> = {}) => {
    const parts = queryParams.map((q) => `${q.name}=${over[q.name] ?? encodeURIComponent(String(sample(q.schema, q.name)))}`);
    return parts.length ? `?${parts.join('&')}` : '';
  };
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const baseBody = schema ? JSON.stringify(sample(schema)) : undefined;
  const M = method.toUpperCase();
  const id = `${M} ${path}`;
  const out: Probe[] = [];
  for (const p of pathParams) {
    for (const [label, v] of Object.entries(PATH_VALUES)) out.push({ label: `${id} path ${p.name} ${label}`, method: M, url: fill({ [p.name]: v }) + query(), headers, body: baseBody });
  }
  for (const q of queryParams) {
    for (const [label, v] of Object.entries(QUERY_VALUES)) out.push({ label: `${id} query ${q.name} ${label}`, method: M, url: fill() + query({ [q.name]: v }), headers, body: baseBody });
    out.push({ label: `${id} query ${q.name} twice`, method: M, url: `${fill()}${query()}&${q.name}=1&${q.name}=2`.replace(/^([^?]*)&/, '$1?'), headers, body: baseBody });
  }
  // an unknown query parameter, a NUL in its name, and %FF in a fixed segment of the path
  out.push({ label: `${id} unknown query`, method: M, url: `${fill()}${query() ? `${query()}&` : '?'}sweep%00=%00`, headers, body: baseBody });
  out.push({ label: `${id} %FF segment`, method: M, url: `${fill()}/%FF`, headers, body: baseBody });
  if (schema && !BODY_NOT_SWEPT[id]) {
    for (const m of bodyMutations(schema)) out.push({ label: `${id} body ${m.label}`, method: M, url: fill() + query(), headers, body: m.body });
    out.push({ label: `${id} body as text/plain`, method: M, url: fill() + query(), headers: { ...headers, 'content-type': 'text/plain' }, body: baseBody });
  } else if (M !== 'GET' && M !== 'DELETE') {
    out.push({ label: `${id} unexpected body`, method: M, url: fill() + query(), headers, body: JSON.stringify({ sweep: NUL }) });
  }
  return out;
}

describe('hostile input over every operation in docs/openapi.json', { timeout: 240_000 }, () => {
  it('answers no 5xx and every error in the catalogue envelope', async () => {
    const ops: [string, string, Operation][] = [];
    for (const [path, item] of Object.entries(doc.paths)) for (const m of METHODS) if (item[m]) ops.push([path, m, item[m]!]);
    expect(ops.length).toBeGreaterThan(80);
    // deletions last, so the other operations still find what they look up
    ops.sort((a, b) => Number(a[1] === 'delete') - Number(b[1] === 'delete'));
    const probes = ops.flatMap(([path, m, op]) => probesFor(path, m, op));
    expect(probes.length).toBeGreaterThan(1500);
    const found = await runAll(gw, probes);
    expect(found.map((f) => `${f.probe} -> ${f.status} ${f.body}`)).toEqual([]);
    // the generated requests reach the writes that store tenant and admin strings (where NUL gave a 500)
    for (const stored of ['PUT /v1/settings/routing', 'POST /v1/settings/alerts/webhooks', 'PUT /v1/admin/providers/{name}', 'POST /v1/admin/accounts/{account}/credit', 'PUT /v1/connections/{name}', 'POST /v1/agents']) {
      expect(answered.get(`${stored} body sample`), stored).toBeLessThan(300);
      expect(answered.get(`${stored} body sample`), stored).toBeGreaterThanOrEqual(200);
    }
  });
});

describe('tRPC and GraphQL answer bad input with the catalogue code', { timeout: 60_000 }, () => {
  it('tRPC: NUL and a lone surrogate are 400 invalid_request naming the field; its own failures name catalogue codes too', async () => {
    const t = trpcClient(gw.url, { key: tenant.api_key });
    const nul = await trpcFailure(t.settings.setRouting.mutate({ judge_model: NUL }));
    expect(nul.data).toMatchObject({ httpStatus: 400, code: 'BAD_REQUEST', apiCode: 'invalid_request', type: 'invalid_request_error', param: 'judge_model' });
    const lone = await trpcFailure(t.settings.createWebhook.mutate({ url: `${loopbackUrl}${SURROGATE}` }));
    expect(lone.data).toMatchObject({ httpStatus: 400, apiCode: 'invalid_request', param: 'url' });
    const ladder = await trpcFailure(t.settings.setRouting.mutate({ ladders: { premium: ['gpt-4.1', NUL] } }));
    expect(ladder.data).toMatchObject({ httpStatus: 400, apiCode: 'invalid_request', param: 'ladders.premium.1' });
    // nothing was stored
    expect((await t.settings.routing.query()).judge_model ?? null).not.toBe(NUL);
    // tRPC's own refusals: a body that is not JSON, a procedure that does not exist
    const notJson = await fetch(`${gw.url}/trpc/settings.setRouting`, { method: 'POST', headers: authed(tenant.api_key), body: '{"judge_model":' });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { data: { apiCode: string } } }).error.data.apiCode).toBe('invalid_json');
    const missing = await fetch(`${gw.url}/trpc/no.such.procedure`, { headers: authed(tenant.api_key) });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { data: { apiCode: string } } }).error.data.apiCode).toBe('not_found');
  });

  it('GraphQL: NUL and a lone surrogate are BAD_USER_INPUT with apiCode invalid_request and the field; syntax and validation errors carry a catalogue code', async () => {
    const key = { key: tenant.api_key };
    const nul = await gql(gw.url, key, 'mutation($i: RoutingSettingsInput!) { setRoutingSettings(input: $i) { judgeModel } }', { i: { judgeModel: NUL } });
    expect(nul.data).toBeNull();
    expect(nul.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', apiCode: 'invalid_request', status: 400, field: 'input.judgeModel' });
    // a literal in the document, not a variable
    const literal = await gql(gw.url, key, 'mutation { createAlertWebhook(url: "http://127.0.0.1:9/h\\ud800") { id } }');
    expect(literal.errors?.[0]?.extensions).toMatchObject({ apiCode: 'invalid_request', status: 400 });
    const syntax = await gql(gw.url, key, '{ calls(');
    expect(syntax.errors?.[0]?.extensions).toMatchObject({ apiCode: 'invalid_request', type: 'invalid_request_error' });
    const unknown = await gql(gw.url, key, '{ noSuchField }');
    expect(unknown.errors?.[0]?.extensions).toMatchObject({ apiCode: 'invalid_request', type: 'invalid_request_error' });
  });

  it("GraphQL introspection shows a tenant the tenant schema only, and the admin the admin's", async () => {
    const introspect = '{ __schema { queryType { fields { name } } mutationType { fields { name } } types { name } } }';
    type Schema = { __schema: { queryType: { fields: { name: string }[] }; mutationType: { fields: { name: string }[] }; types: { name: string }[] } };
    const names = (d: Schema) => [...d.__schema.queryType.fields, ...d.__schema.mutationType.fields].map((f) => f.name);
    const adminOnly = ['catalog', 'model', 'providers', 'putModel', 'removeModel', 'setModelDisabled', 'putProvider', 'removeProvider', 'testProvider'];
    const asTenant = await gql(gw.url, { key: tenant.api_key }, introspect);
    const tenantNames = names(asTenant.data as Schema);
    expect(tenantNames).toContain('setRoutingSettings');
    for (const f of adminOnly) expect(tenantNames).not.toContain(f);
    expect((asTenant.data as Schema).__schema.types.map((t) => t.name)).not.toContain('ProviderInput');
    // an admin field is not there for a tenant to call
    const call = await gql(gw.url, { key: tenant.api_key }, 'mutation { removeProvider(name: "openai") }');
    expect(call.data).toBeNull();
    expect(call.errors?.[0]?.extensions).toMatchObject({ apiCode: 'invalid_request' });
    const asAdmin = await gql(gw.url, { key: gw.adminKey }, introspect);
    for (const f of adminOnly) expect(names(asAdmin.data as Schema)).toContain(f);
  });
});

describe('REST names the field it refuses, and maps what the router and the database refuse', { timeout: 60_000 }, () => {
  const envelope = async (r: Response) => ({ status: r.status, error: ((await r.json()) as { error: { code: string; param: string | null } }).error });

  it('names the body field, the path parameter and the query parameter holding NUL or a lone surrogate', async () => {
    const put = (body: unknown) => fetch(`${gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(tenant.api_key), body: JSON.stringify(body) });
    expect(await envelope(await put({ ladders: { premium: ['gpt-4.1', SURROGATE] } }))).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'ladders.premium.1' } });
    expect(await envelope(await put({ ladders: { [NUL]: ['gpt-4.1'] } }))).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'ladders' } });
    expect(await envelope(await put({ judge_model: NUL }))).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'judge_model' } });
    const path = await fetch(`${gw.url}/v1/workflows/a%00b/stage`, { headers: authed(tenant.api_key) });
    expect(await envelope(path)).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'id' } });
    const query = await fetch(`${gw.url}/v1/calls?agent=%00`, { headers: authed(tenant.api_key) });
    expect(await envelope(query)).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'agent' } });
  });

  it("answers the router's own refusals in the catalogue's envelope", async () => {
    const badUrl = await fetch(`${gw.url}/v1/connections/%FF`, { headers: authed(tenant.api_key) });
    expect(await envelope(badUrl)).toMatchObject({ status: 400, error: { code: 'invalid_request' } });
    const long = await fetch(`${gw.url}/v1/workflows/${'p'.repeat(300)}/stage`, { headers: authed(tenant.api_key) });
    expect(await envelope(long)).toMatchObject({ status: 400, error: { code: 'invalid_request' } });
  });

  it('takes a database refusal of a value as the caller\'s input, and a lost connection as an outage', () => {
    const wrapped = (code: string) => Object.assign(new Error('driver'), { cause: Object.assign(new Error('pg'), { code }) });
    expect(toApiError(wrapped('22P05'))).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(toApiError(wrapped('22021'))).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(toApiError(wrapped('22001'))).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(toApiError(wrapped('22003'))).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(toApiError(wrapped('23505'))).toMatchObject({ code: 'conflict', status: 409 });
    expect(toApiError(wrapped('54000'))).toMatchObject({ code: 'invalid_request', status: 400 });
    // an input error that came with a broken connection is still the input's
    expect(toApiError(Object.assign(new Error('pg'), { code: '22P05', cause: { code: 'ECONNRESET' } }))).toMatchObject({ code: 'invalid_request' });
    expect(toApiError(wrapped('08006'))).toMatchObject({ code: 'unavailable', status: 503 });
    expect(toApiError(wrapped('ECONNREFUSED'))).toMatchObject({ code: 'unavailable', status: 503 });
    expect(toApiError(new Error('a bug'))).toMatchObject({ code: 'internal', status: 500 });
  });
});
