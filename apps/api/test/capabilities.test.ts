// A capability declared once appears on all four doors (issue 31, acceptance 4): this test
// declares one (`echo`) here, adds it to a gateway's set, and reads it over REST, tRPC and
// GraphQL and in the OpenAPI document that gateway serves: the same answer on the three
// doors, the same refusal in each door's error shape, and the operation documented with its
// input and output schemas. The committed document (the gateway's own set) does not have it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { capability, withCapabilities } from '../src/capabilities/capability.ts';
import { capabilities } from '../src/capabilities/index.ts';
import { named, time } from '../src/capabilities/shapes.ts';
import { ApiError } from '../src/errors.ts';
import { registeredRoutes } from '../src/http/route-table.ts';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';

const Echo = named(
  'Echo',
  z
    .object({
      text: z.string().describe('What was sent, repeated.'),
      times: z.number().int(),
      account_id: z.string(),
      at: time(),
    })
    .describe('What the echo capability answers.'),
);

/** The capability under test, declared in one place: schemas, auth, domain function and the doors' names. */
const echo = capability({
  auth: 'control',
  input: z.object({ text: z.string().min(1).max(100), times: z.number().int().min(1).max(3).default(1) }).strict(),
  output: Echo,
  run: (_s, tenant, q) => {
    if (q.text === 'missing') throw new ApiError('not_found', 'Nothing called missing.', { param: 'text' });
    return { text: q.text.repeat(q.times), times: q.times, account_id: tenant.accountId, at: new Date().toISOString() };
  },
  rest: { method: 'get', path: '/v1/test/echo/:text', tag: 'Operations', summary: 'Echo a text', answer: 'The text, repeated.', errors: ['not_found'] },
  graphql: { name: 'echo', description: 'Echoes the text, `times` times.' },
});

let gw: TestGateway;
let tenant: { api_key: string; account_id: string };

beforeAll(async () => {
  gw = await startGateway({ capabilities: withCapabilities(capabilities, { echo }) });
  tenant = await signup(gw);
});
afterAll(async () => {
  await gw?.close();
});

const restGet = async (path: string, key: string | null = tenant.api_key) => {
  const r = await fetch(`${gw.url}${path}`, { headers: key ? authed(key) : {} });
  return { status: r.status, body: (await r.json()) as any };
};
const trpcGet = async (input: unknown, key: string | null = tenant.api_key) => {
  const r = await fetch(`${gw.url}/trpc/echo?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: key ? authed(key) : {} });
  return { status: r.status, body: (await r.json()) as any };
};
const graphql = async (query: string, key: string | null = tenant.api_key) => {
  const r = await fetch(`${gw.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? authed(key) : {}) }, body: JSON.stringify({ query }) });
  return { status: r.status, body: (await r.json()) as any };
};

describe('a capability added to the set', () => {
  it('answers on REST, tRPC and GraphQL alike, from the one domain function', async () => {
    const rest = await restGet('/v1/test/echo/hello?times=2');
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ text: 'hellohello', times: 2, account_id: tenant.account_id });

    const trpc = await trpcGet({ text: 'hello', times: 2 });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data).toMatchObject({ text: 'hellohello', times: 2, account_id: tenant.account_id });

    const gql = await graphql('query { echo(text: "hello", times: 2) { text times accountId at } }');
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.echo).toMatchObject({ text: 'hellohello', times: 2, accountId: tenant.account_id });
    expect(Date.parse(gql.body.data.echo.at)).not.toBeNaN();

    // the input's default applies on every door
    expect((await restGet('/v1/test/echo/hi')).body.times).toBe(1);
    expect((await trpcGet({ text: 'hi' })).body.result.data.times).toBe(1);
    expect((await graphql('query { echo(text: "hi") { times } }')).body.data.echo.times).toBe(1);
  });

  it('refuses a bad input and a missing thing with the same catalogue code on every door', async () => {
    const rest = await restGet('/v1/test/echo/hello?times=9');
    expect(rest.status).toBe(422);
    expect(rest.body.error).toMatchObject({ code: 'validation_failed', param: 'times' });
    const trpc = await trpcGet({ text: 'hello', times: 9 });
    expect(trpc.status).toBe(422);
    expect(trpc.body.error.data).toMatchObject({ apiCode: 'validation_failed', param: 'times' });
    const gql = await graphql('query { echo(text: "hello", times: 9) { text } }');
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', apiCode: 'validation_failed', field: 'times', status: 422 });

    const missing = await restGet('/v1/test/echo/missing');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'not_found', param: 'text', message: 'Nothing called missing.' });
    const trpcMissing = await trpcGet({ text: 'missing' });
    expect(trpcMissing.status).toBe(404);
    expect(trpcMissing.body.error).toMatchObject({ message: 'Nothing called missing.', data: { apiCode: 'not_found', param: 'text' } });
    const gqlMissing = await graphql('query { echo(text: "missing") { text } }');
    expect(gqlMissing.body.errors[0]).toMatchObject({ message: 'Nothing called missing.', extensions: { code: 'NOT_FOUND', apiCode: 'not_found', status: 404 } });
  });

  it('asks for a tenant on every door, as its auth says', async () => {
    expect((await restGet('/v1/test/echo/hello', null)).body.error.code).toBe('missing_api_key');
    const trpc = await trpcGet({ text: 'hello' }, null);
    expect(trpc.status).toBe(401);
    expect(trpc.body.error.data.apiCode).toBe('missing_api_key');
    expect((await graphql('query { echo(text: "hello") { text } }', null)).status).toBe(401);
  });

  it('is a route Fastify registered and an operation of the document the gateway serves, with its schemas', async () => {
    expect(registeredRoutes(gw.app)).toContainEqual({ method: 'GET', url: '/v1/test/echo/:text' });
    const doc = (await restGet('/v1/openapi.json', null)).body;
    const op = doc.paths['/v1/test/echo/{text}'].get;
    expect(op).toMatchObject({ operationId: 'getTestEchoByText', summary: 'Echo a text', tags: ['Operations'], security: [{ tenantKey: [] }, { session: [] }] });
    expect(op.parameters).toEqual([
      { name: 'text', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 100 } },
      { name: 'times', in: 'query', required: false, schema: { default: 1, type: 'integer', minimum: 1, maximum: 3 } },
    ]);
    expect(op.responses['200']).toEqual({ description: 'The text, repeated.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Echo' } } } });
    expect(op.responses['404'].description).toContain('`not_found`');
    expect(op.responses['422'].description).toContain('`validation_failed`');
    expect(doc.components.schemas.Echo).toMatchObject({
      type: 'object',
      description: 'What the echo capability answers.',
      properties: { text: { type: 'string', description: 'What was sent, repeated.' }, times: { type: 'integer' }, account_id: { type: 'string' }, at: { type: 'string', format: 'date-time' } },
      required: ['text', 'times', 'account_id', 'at'],
    });
    // the gateway's own document is made from its own set: the test's capability is not in it
    const committed = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    expect(committed.paths['/v1/test/echo/{text}']).toBeUndefined();
    expect(committed.components.schemas.Echo).toBeUndefined();
  });
});
