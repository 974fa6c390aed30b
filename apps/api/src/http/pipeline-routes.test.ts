import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { PipelineHandler } from '../pipeline/reply.ts';
import { onFastify } from './pipeline-routes.ts';

describe('the pipeline on Fastify', () => {
  it('sends a whole answer once while an onSend hook still waits (the metering lines reaching their file)', async () => {
    const app = Fastify();
    const sends: unknown[] = [];
    app.addHook('onSend', (_request, _reply, payload, done) => {
      sends.push(payload);
      setTimeout(() => done(null, payload), 20);
    });
    const answer: PipelineHandler = async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' });
    app.post('/v1/chat/completions', onFastify(answer));
    const res = await app.inject({ method: 'POST', url: '/v1/chat/completions', payload: {} });
    await new Promise((r) => setTimeout(r, 60));
    await app.close();
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('{"ok":true}');
    expect(sends).toEqual(['{"ok":true}']);
  });
});
