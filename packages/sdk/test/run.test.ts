import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OptimizerClient } from '../src/index.ts';
import { completion, startServer, type TestServer } from './server.ts';

const messages = [{ role: 'user', content: 'hello' }];
let server: TestServer;
let client: OptimizerClient;

beforeEach(async () => {
  server = await startServer({ 'POST /v1/chat/completions': { body: completion() }, 'POST /v1/outcomes': { status: 202, body: { accepted: true } } });
  client = new OptimizerClient({ baseURL: server.url, apiKey: 'sk-opt-tenant' });
});
afterEach(() => server.close());

const sentRuns = () => server.requests.map((r) => r.body.optimizer.run);

describe('the run helper', () => {
  it('numbers calls from 0 and marks only the first as the start', async () => {
    const run = client.run({ id: 'run-1' });
    await run.complete('plan', { model: 'm', messages });
    await run.complete('act', { model: 'm', messages }, { parent: 'plan' });
    await run.complete('check', { model: 'm', messages }, { parent: 'act' });
    expect(sentRuns()).toEqual([
      { id: 'run-1', seq: 0, is_start: true },
      { id: 'run-1', seq: 1, is_start: false, parent: 'plan' },
      { id: 'run-1', seq: 2, is_start: false, parent: 'act' },
    ]);
  });

  it('numbers concurrent calls in the order they were made', async () => {
    const run = client.run();
    await Promise.all(['a', 'b', 'c'].map((step) => run.complete(step, { model: 'm', messages }, { parent: 'root' })));
    const bySeq = server.requests.map((r) => [r.body.optimizer.step.id, r.body.optimizer.run.seq]).sort((x, y) => x[1] - y[1]);
    expect(bySeq).toEqual([['a', 0], ['b', 1], ['c', 2]]);
    expect(run.calls).toBe(3);
  });

  it('sets the step id, kind, minimum score, objective and release', async () => {
    const run = client.run({ id: 'run-2', release: 'v1.4.0' });
    await run.complete('extract', { model: 'm', messages }, { kind: 'extraction', minScore: 0.9, objective: 'quality' });
    expect(server.requests[0]?.body.optimizer).toEqual({
      run: { id: 'run-2', seq: 0, is_start: true },
      step: { id: 'extract', kind: 'extraction', quality: { min_score: 0.9 } },
      intent: { objective: 'quality' },
      source: { release: 'v1.4.0' },
    });
  });

  it('keeps annotation fields the caller set on the body', async () => {
    const run = client.run({ id: 'run-3', release: 'r9' });
    await run.complete('s', { model: 'm', messages, optimizer: { step: { mode: 'discover' }, source: { file: 'agent.ts', line: 12 } } });
    expect(server.requests[0]?.body.optimizer).toEqual({
      run: { id: 'run-3', seq: 0, is_start: true },
      step: { id: 's', mode: 'discover' },
      source: { file: 'agent.ts', line: 12, release: 'r9' },
    });
  });

  it('sends request options such as the idempotency key along with the call', async () => {
    const run = client.run();
    await run.complete('s', { model: 'm', messages }, { parent: 'p', idempotencyKey: 'k-1' });
    expect(server.requests[0]?.headers['idempotency-key']).toBe('k-1');
    expect(server.requests[0]?.body.optimizer.run.parent).toBe('p');
  });

  it('picks a random UUID run id when none is given', () => {
    const a = client.run();
    const b = client.run();
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.id).not.toBe(b.id);
  });

  it('reports an outcome under the run id and resolves with what the gateway recorded', async () => {
    const recorded = { run_id: 'run-4', step_id: 'extract', score: 0.7, calls: ['call_1', 'call_2'] };
    server.routes.set('POST /v1/outcomes', { status: 202, body: recorded });
    const run = client.run({ id: 'run-4' });
    await expect(run.outcome('extract', { schema_valid: true, human_verdict: 'edited', score: 0.7 })).resolves.toEqual(recorded);
    const [req] = server.requests;
    expect(`${req?.method} ${req?.path}`).toBe('POST /v1/outcomes');
    expect(req?.body).toEqual({ run_id: 'run-4', step_id: 'extract', signals: { schema_valid: true, human_verdict: 'edited', score: 0.7 } });
    expect(req?.headers.authorization).toBe('Bearer sk-opt-tenant');
  });

  it('refuses a misspelled outcome signal without sending', async () => {
    const report = { run_id: 'r', step_id: 's', signals: { schema_vaild: true } } as never;
    await expect(client.outcomes.report(report)).rejects.toMatchObject({ status: 0, code: 'client_validation', param: 'signals.schema_vaild' });
    expect(server.requests).toHaveLength(0);
  });
});
