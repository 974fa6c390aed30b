// docs/openapi.json is generated from the code (apps/api/src/openapi/document.ts, written by
// scripts/openapi.ts). Here: it is current, it passes a real OpenAPI linter (Redocly's
// recommended rules), and its paths are exactly the routes the gateway registers, so a route
// added without documenting it (or a documented route that is gone) fails.
import { readFileSync } from 'node:fs';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalogue } from '../src/errors.ts';
import { registeredRoutes } from '../src/http/route-table.ts';
import { OPENAPI_PATH, openApiPath } from '../src/openapi/document.ts';
import { openApiPath as openApiFile, renderOpenApi } from '../../../scripts/openapi.ts';
import { authed, type TestGateway } from './support/gateway.ts';
import { PLATFORM_KEY, routeOnMockOpenAI, startRig, type Rig } from './support/vendor.ts';

/**
 * Routes the gateway registers that the document leaves out, each with why (`*`: every
 * method). Anything else Fastify registers must be in the document.
 */
const notDocumented: Record<string, string> = {
  // GraphQL describes itself: its SDL is printed to packages/schema/schema.graphql and GraphiQL is served on GET.
  'GET /graphql': 'GraphQL door (SDL, not OpenAPI)',
  'POST /graphql': 'GraphQL door (SDL, not OpenAPI)',
  // tRPC's procedures are typed by AppRouter (apps/api/src/trpc/router.ts), not by HTTP paths.
  // Its Fastify adapter registers the path for every method and answers the ones tRPC does not use itself.
  '* /trpc/:path': 'tRPC door (AppRouter)',
  // The web app's pages and assets (dashboard and admin console): HTML, not an API.
  'GET /optimizer': 'web app',
  'GET /optimizer/*': 'web app',
};

type Media = Record<string, { schema?: Record<string, unknown> }>;
type DocOperation = { security: Record<string, string[]>[]; responses: Record<string, { description: string; content?: Media }> };
type Doc = { paths: Record<string, Record<string, DocOperation>>; components: { schemas: Record<string, unknown> } };
const committed = (): Doc => JSON.parse(readFileSync(openApiFile, 'utf8')) as Doc;
const excluded = (route: string) => route in notDocumented || `* ${route.slice(route.indexOf(' ') + 1)}` in notDocumented;
const methods = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

function documented(doc: Doc): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .filter((m) => methods.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

async function lint(source: string): Promise<NormalizedProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  return lintFromString({ source, absoluteRef: 'openapi.json', config });
}

/** The schema with its `#/components/schemas/…` references replaced by what they name. */
function deref(v: unknown, doc: Doc): unknown {
  if (Array.isArray(v)) return v.map((x) => deref(x, doc));
  if (typeof v !== 'object' || v === null) return v;
  const o = v as Record<string, unknown>;
  if (typeof o.$ref === 'string') return deref(doc.components.schemas[o.$ref.replace('#/components/schemas/', '')], doc);
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, deref(x, doc)]));
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

/**
 * What the route answered is one of the document's answers for it: the status is documented
 * and the body validates against that status's schema. Returns the failures, empty if none.
 */
function conforms(doc: Doc, method: string, path: string, status: number, contentType: string, body: string): string[] {
  const op = doc.paths[path]?.[method];
  if (!op) return [`${method} ${path} is not documented`];
  const answer = op.responses[String(status)];
  if (!answer) return [`${method} ${path} answered ${status}, not documented (${Object.keys(op.responses).join(', ')}): ${body.slice(0, 200)}`];
  if (!answer.content) return body === '' ? [] : [`${method} ${path} ${status}: documented without a body, got ${body.slice(0, 100)}`];
  const type = Object.keys(answer.content).find((t) => contentType.startsWith(t));
  if (!type) return [`${method} ${path} ${status}: content-type ${contentType} not in ${Object.keys(answer.content).join(', ')}`];
  if (type !== 'application/json') return [];
  const validate = ajv.compile(deref(answer.content[type]!.schema ?? {}, doc) as object);
  return validate(JSON.parse(body)) ? [] : [`${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}: ${body.slice(0, 300)}`];
}

const show = (ps: NormalizedProblem[]) => ps.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);

describe('the OpenAPI document', () => {
  it('is what node scripts/openapi.ts writes from the code today', () => {
    expect(readFileSync(openApiFile, 'utf8'), 'docs/openapi.json is stale: run node scripts/openapi.ts').toBe(renderOpenApi());
  });

  it("passes Redocly's recommended rules for OpenAPI 3.1 with no error", async () => {
    const problems = await lint(readFileSync(openApiFile, 'utf8'));
    expect(show(problems.filter((p) => p.severity === 'error'))).toEqual([]);
    // The only warnings: the health, metrics and document routes answer no 4xx (nothing a client sends can be wrong).
    expect(show(problems.filter((p) => p.severity !== 'error')).sort()).toEqual(
      ['/healthz', '/metrics', '/readyz', OPENAPI_PATH]
        .map((p) => `warn operation-4xx-response #/paths/${p.replaceAll('/', '~1')}/get/responses: Operation must have at least one \`4XX\` response.`)
        .sort(),
    );
  });

  it('the linter is not a rubber stamp: a broken copy fails it', async () => {
    const broken = committed() as Doc & Record<string, unknown>;
    broken.paths['/v1/nowhere/{id}'] = { get: { responses: {} } } as never;
    delete broken.info;
    const rules = new Set((await lint(JSON.stringify(broken))).filter((p) => p.severity === 'error').map((p) => p.ruleId));
    expect(rules).toContain('path-parameters-defined');
    expect(rules).toContain('struct');
  });

  it("names only the error catalogue's codes, each under its own status", () => {
    const codes = new Set(Object.keys(errorCatalogue));
    let seen = 0;
    for (const ops of Object.values(committed().paths)) {
      for (const op of Object.values(ops)) {
        for (const [status, r] of Object.entries(op.responses)) {
          if (!r.description.startsWith('The error envelope')) continue;
          const named = [...r.description.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!).filter((c) => c !== 'code');
          expect(named.length).toBeGreaterThan(0);
          for (const c of named) {
            expect(codes, c).toContain(c);
            expect(errorCatalogue[c as keyof typeof errorCatalogue].status, `${c} under ${status}`).toBe(Number(status));
            seen++;
          }
        }
      }
    }
    expect(seen).toBeGreaterThan(100);
  });

  describe('against the running gateway', () => {
    let rig: Rig;
    let gw: TestGateway;
    /** The rig tenant's step, once a few annotated calls (one streamed) and an outcome have gone through the mock vendor. */
    let fingerprint: string;
    beforeAll(async () => {
      rig = await startRig();
      gw = rig.gw;
      await gw.services.billing.credit(rig.tenant.account_id, 49_000_000, 'the plan, paid from the wallet'); // the subscription probe
      expect((await routeOnMockOpenAI(rig)).status).toBe(200);
      const put = await fetch(`${gw.url}/v1/settings/capture`, { method: 'PUT', headers: authed(rig.tenant.api_key), body: JSON.stringify({ content: 'full' }) });
      expect(put.status).toBe(200);
      rig.vendor.script({ content: 'Routed to billing.' });
      for (let i = 0; i < 3; i++) {
        const body = { model: 'auto', messages: [{ role: 'user', content: `Sort ticket ${i}` }], optimizer: { run: { id: `run-${i}` }, step: { id: 'sort' } }, ...(i === 2 ? { stream: true } : {}) };
        const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify(body) });
        expect(r.status, await r.clone().text()).toBe(200);
        await r.text();
      }
      await gw.services.meter.flush();
      const steps = (await (await fetch(`${gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps`, { headers: authed(rig.tenant.api_key) })).json()) as { data: { fingerprint: string }[] };
      expect(steps.data.length).toBeGreaterThan(0);
      fingerprint = steps.data[0]!.fingerprint;
    });
    afterAll(async () => {
      await rig?.close();
    });

    it('documents every route Fastify registers and no route it does not', () => {
      const routes = registeredRoutes(gw.app);
      const gets = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.url));
      const registered = routes
        // Fastify answers HEAD beside every GET on its own; those are not routes of ours.
        .filter((r) => !(r.method === 'HEAD' && gets.has(r.url)))
        .map((r) => `${r.method} ${r.url}`);
      // the allow-list names routes that exist (a stale entry would hide nothing and mislead)
      for (const entry of Object.keys(notDocumented)) {
        const [method, url] = entry.split(' ');
        expect(registered.some((r) => r === entry || (method === '*' && r.endsWith(` ${url}`))), `allow-list entry ${entry} is not a route`).toBe(true);
      }
      const mustDocument = registered.filter((k) => !excluded(k)).map((k) => openApiPath(k));
      expect(new Set(mustDocument).size, 'a route registered twice').toBe(mustDocument.length);
      expect(documented(committed()).sort()).toEqual(mustDocument.sort());
    });

    it('serves the committed document at GET /v1/openapi.json without a key', async () => {
      const r = await fetch(`${gw.url}${OPENAPI_PATH}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await r.json()).toEqual(committed());
    });

    it('every documented GET answers with a documented status and a body its schema accepts', async () => {
      const doc = committed();
      const tenant = rig.tenant;
      const fill: Record<string, string> = { id: tenant.workflow_id, fingerprint };
      const failures: string[] = [];
      let checked = 0;
      for (const [path, ops] of Object.entries(doc.paths)) {
        const op = ops.get;
        if (!op) continue;
        const schemes = new Set(op.security.flatMap((s) => Object.keys(s)));
        const key = schemes.has('adminKey') ? gw.adminKey : schemes.has('tenantKey') ? tenant.api_key : null;
        const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => fill[name] ?? 'unknown');
        const r = await fetch(`${gw.url}${url}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
        const text = await r.text();
        failures.push(...conforms(doc, 'get', path, r.status, r.headers.get('content-type') ?? '', text));
        checked++;
      }
      expect(failures).toEqual([]);
      expect(checked).toBeGreaterThan(30);
    });

    it('writes answer with documented statuses and bodies, successes and refusals alike', async () => {
      const doc = committed();
      const tenant = rig.tenant;
      const w = tenant.workflow_id;
      const probes: [method: string, path: string, url: string, body: unknown, status: number][] = [
        ['put', '/v1/settings/guard', '/v1/settings/guard', {}, 200],
        ['put', '/v1/settings/capture', '/v1/settings/capture', { content: 'full' }, 200],
        ['put', '/v1/settings/alerts', '/v1/settings/alerts', { spend_cap_usd: 100 }, 200],
        ['put', '/v1/settings/routing', '/v1/settings/routing', { tiebreak: 'cost' }, 200],
        ['post', '/v1/agents', '/v1/agents', { name: 'summarizer' }, 201],
        ['post', '/v1/agents', '/v1/agents', {}, 422],
        ['post', '/v1/agents/{id}/keys', `/v1/agents/${w}/keys`, {}, 201],
        ['post', '/v1/settings/alerts/webhooks', '/v1/settings/alerts/webhooks', { url: 'https://hooks.example.com/optimizer' }, 201],
        ['post', '/v1/workflows/{id}/report/finalize', `/v1/workflows/${w}/report/finalize`, {}, 201],
        ['post', '/v1/workflows/{id}/subscription', `/v1/workflows/${w}/subscription`, {}, 201],
        ['post', '/v1/workflows/{id}/stage', `/v1/workflows/${w}/stage`, { stage: 'production' }, 200],
        ['delete', '/v1/workflows/{id}/subscription', `/v1/workflows/${w}/subscription`, {}, 200],
        ['post', '/v1/estimate', '/v1/estimate', { monthly_spend: 1000 }, 200],
        ['post', '/v1/login', '/v1/login', { email: 'nobody@example.com', api_key: tenant.api_key }, 401],
        ['post', '/v1/outcomes', '/v1/outcomes', { run_id: 'r', step_id: 's', signals: {} }, 422],
        ['patch', '/v1/workflows/{id}/steps/{fingerprint}', `/v1/workflows/${w}/steps/no-such-step`, { excluded: true }, 404],
        ['put', '/v1/proxy-agents/{id}/discovery', `/v1/proxy-agents/${w}/discovery`, { enabled: true }, 200],
        // the workflow is in production now, which runs on the tenant's own keys: without one, a documented 409
        ['post', '/v1/chat/completions', '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, 409],
        ['put', '/v1/settings/provider-keys/{provider}', '/v1/settings/provider-keys/openai', { key: PLATFORM_KEY }, 200],
        ['post', '/v1/chat/completions', '/v1/chat/completions', { model: 'auto' }, 400],
        ['post', '/v1/chat/completions', '/v1/chat/completions', { model: 'auto', messages: [{ role: 'user', content: 'Sort ticket 9' }], optimizer: { step: { id: 'sort' } } }, 200],
        ['post', '/v1/outcomes', '/v1/outcomes', { run_id: 'run-0', step_id: 'sort', signals: { schema_valid: true } }, 202],
      ];
      const failures: string[] = [];
      for (const [method, path, url, body, status] of probes) {
        const r = await fetch(`${gw.url}${url}`, { method: method.toUpperCase(), headers: { authorization: `Bearer ${tenant.api_key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const text = await r.text();
        if (r.status !== status) failures.push(`${method} ${url}: expected ${status}, got ${r.status} ${text.slice(0, 200)}`);
        failures.push(...conforms(doc, method, path, r.status, r.headers.get('content-type') ?? '', text));
      }
      expect(failures).toEqual([]);
    });

    it("a route's documented error is what the route answers", async () => {
      const doc = committed();
      const r = await fetch(`${gw.url}/v1/calls`);
      const body = (await r.json()) as { error: { code: string; type: string } };
      expect(r.status).toBe(401);
      const documentedAs = doc.paths['/v1/calls']!.get!.responses['401']!.description;
      expect(documentedAs).toContain(`\`${body.error.code}\``);
      const put = await fetch(`${gw.url}/v1/settings/guard`, { method: 'PUT', headers: { authorization: 'Bearer sk-opt-nope', 'content-type': 'application/json' }, body: '{}' });
      expect(put.status).toBe(401);
      expect(doc.paths['/v1/settings/guard']!.put!.responses['401']!.description).toContain(`\`${((await put.json()) as { error: { code: string } }).error.code}\``);
    });
  });
});
