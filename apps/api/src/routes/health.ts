import type { FastifyInstance } from 'fastify';
import { renderEmbedderGauge } from '../cache/semantic-metrics.ts';
import type { Services } from '../services.ts';

export function registerHealthRoutes(app: FastifyInstance, s: Services): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const checks: Record<string, string> = {};
    await s.db.ping().then(
      () => (checks.database = 'ok'),
      (e: Error) => (checks.database = `down: ${e.message}`),
    );
    if (s.hot.kind === 'redis') {
      await s.hot.ping().then(
        () => (checks.redis = 'ok'),
        (e: Error) => (checks.redis = `down: ${e.message}`),
      );
    }
    const ready = Object.values(checks).every((v) => v === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });

  app.get('/metrics', async (_request, reply) => {
    s.metrics.meterPending.value = s.meter.pending;
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(s.metrics.render() + renderEmbedderGauge(s.semanticCache.embedderStatus) + '\n');
  });
}
