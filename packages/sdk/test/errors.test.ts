import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError, parseRetryAfter, toOptimizerError } from '../src/index.ts';
import { startServer, type TestServer } from './server.ts';

const EP = 'POST /v1/agents';

describe('toOptimizerError', () => {
  it('reads the REST shape', () => {
    const raw = JSON.stringify({ error: { message: 'name: name is required', type: 'invalid_request_error', code: 'validation_failed', param: 'name' } });
    const e = toOptimizerError(422, EP, raw, { 'Content-Type': 'application/json' });
    expect(e).toBeInstanceOf(OptimizerError);
    expect(e).toBeInstanceOf(Error);
    expect({ ...e, message: e.message, name: e.name }).toEqual({
      name: 'OptimizerError',
      status: 422,
      endpoint: EP,
      message: 'name: name is required',
      code: 'validation_failed',
      type: 'invalid_request_error',
      param: 'name',
      rawBody: raw,
      retryAfter: null,
      cap: null,
      used: null,
    });
  });

  it('reads the GraphQL shape, joining the messages of several errors', () => {
    const raw = JSON.stringify({ errors: [{ message: 'Not allowed', path: ['agent', 'keys'], extensions: { code: 'FORBIDDEN' } }, { message: 'Second' }], data: null });
    const e = toOptimizerError(200, 'POST /graphql', raw, undefined);
    expect(e).toMatchObject({ status: 200, endpoint: 'POST /graphql', message: 'Not allowed; Second', code: 'FORBIDDEN', type: null, param: 'agent.keys', rawBody: raw });
  });

  it('reads the tRPC shape wrapped in json', () => {
    const raw = JSON.stringify({ error: { json: { message: 'No agent wf_9.', code: -32004, data: { code: 'NOT_FOUND', httpStatus: 404, path: 'agents.get' } } } });
    const e = toOptimizerError(404, 'GET /trpc/agents.get', raw, new Headers());
    expect(e).toMatchObject({ status: 404, message: 'No agent wf_9.', code: 'NOT_FOUND', type: null, param: 'agents.get', rawBody: raw });
  });

  it('reads the tRPC shape without the json wrapper', () => {
    const raw = JSON.stringify({ error: { message: 'Too many requests.', code: -32029, data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429 } } });
    const e = toOptimizerError(429, 'POST /trpc/x', raw, new Headers({ 'Retry-After': '12' }));
    expect(e).toMatchObject({ status: 429, message: 'Too many requests.', code: 'TOO_MANY_REQUESTS', retryAfter: 12 });
  });

  it('reads the first error of a tRPC batch answer', () => {
    const raw = JSON.stringify([{ result: { data: 1 } }, { error: { json: { message: 'bad', code: -32600, data: { code: 'BAD_REQUEST', httpStatus: 400 } } } }]);
    expect(toOptimizerError(400, 'GET /trpc/a,b', raw)).toMatchObject({ message: 'bad', code: 'BAD_REQUEST' });
  });

  it('keeps a plain-text body and names the endpoint and status in the message', () => {
    const e = toOptimizerError(502, EP, 'Bad Gateway', undefined);
    expect(e).toMatchObject({ status: 502, code: null, type: null, param: null, rawBody: 'Bad Gateway', message: 'POST /v1/agents failed with status 502: Bad Gateway' });
  });

  it('leaves an HTML page out of the message but keeps it in rawBody', () => {
    const html = '<!doctype html><html><body>Not found</body></html>';
    const e = toOptimizerError(404, 'GET /v1/nope', html);
    expect(e.message).toBe('GET /v1/nope failed with status 404');
    expect(e.rawBody).toBe(html);
  });

  it('handles an empty body and a JSON body of another shape', () => {
    expect(toOptimizerError(503, EP, '')).toMatchObject({ message: 'POST /v1/agents failed with status 503', rawBody: '', code: null });
    expect(toOptimizerError(400, EP, '{"statusCode":400,"error":"Bad Request","message":"body must be object"}')).toMatchObject({ message: 'body must be object', code: null });
    expect(toOptimizerError(500, EP, '[1,2]').message).toBe('POST /v1/agents failed with status 500: [1,2]');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('5', now)).toBe(5);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe('errors from the client', () => {
  let server: TestServer;
  let client: OptimizerClient;
  beforeEach(async () => {
    server = await startServer();
    client = new OptimizerClient({ baseURL: server.url, apiKey: 'sk-opt-tenant' });
  });
  afterEach(() => server.close());

  it('throws the REST error with its fields and Retry-After', async () => {
    const body = { error: { message: 'Too many requests.', type: 'rate_limit_error', code: 'rate_limited', param: null } };
    server.routes.set('GET /v1/agents', { status: 429, headers: { 'retry-after': '7' }, body });
    await expect(client.agents.list()).rejects.toMatchObject({
      status: 429, endpoint: 'GET /v1/agents', message: 'Too many requests.', code: 'rate_limited', type: 'rate_limit_error', param: null, retryAfter: 7, rawBody: JSON.stringify(body),
    });
  });

  it('throws the GraphQL error with its extension code', async () => {
    server.routes.set('POST /v1/agents', { status: 400, body: { errors: [{ message: 'Name taken', extensions: { code: 'CONFLICT' } }] } });
    await expect(client.agents.create({ name: 'x' })).rejects.toMatchObject({ status: 400, endpoint: 'POST /v1/agents', message: 'Name taken', code: 'CONFLICT' });
  });

  it('throws the tRPC error with its data code', async () => {
    server.routes.set('GET /v1/dashboard/savings', { status: 401, body: { error: { json: { message: 'Sign in', code: -32001, data: { code: 'UNAUTHORIZED', httpStatus: 401 } } } } });
    await expect(client.savings.get()).rejects.toMatchObject({ status: 401, endpoint: 'GET /v1/dashboard/savings', message: 'Sign in', code: 'UNAUTHORIZED' });
  });

  it('throws a non-JSON error body with its text', async () => {
    server.routes.set('GET /v1/calls', { status: 502, body: 'upstream connect error' });
    await expect(client.calls.list()).rejects.toMatchObject({ status: 502, code: null, rawBody: 'upstream connect error', message: 'GET /v1/calls failed with status 502: upstream connect error' });
  });

  it('names the path with its ids in the endpoint', async () => {
    await expect(client.agents.revokeKey('wf 1', 'key/2')).rejects.toMatchObject({ status: 404, endpoint: 'DELETE /v1/agents/wf%201/keys/key%2F2', code: 'not_found' });
  });
});
