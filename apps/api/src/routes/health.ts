import type { FastifyInstance } from 'fastify';
import { renderEmbedderGauge } from '../cache/semantic-metrics.ts';
import type { Services } from '../services.ts';

/** How long /readyz waits for a dependency to answer before calling it down. */
const PING_MS = 2_000;

/** 'ok' when `ping` answers in time, else 'down' (its error is not shown: this route answers anyone). */
function state(ping: Promise<void>): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'down'>((resolve) => (timer = setTimeout(() => resolve('down'), PING_MS)));
  return Promise.race([ping.then(() => 'ok' as const, () => 'down' as const), late]).finally(() => clearTimeout(timer));
}

export function registerHealthRoutes(app: FastifyInstance, s: Services): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const checks: Record<string, string> = {};
    // which dependency is down, never its error: this route answers anyone
    const [database, redis] = await Promise.all([state(s.db.ping()), s.hot.kind === 'redis' ? state(s.hot.ping()) : null]);
    checks.database = database;
    if (redis !== null) checks.redis = redis;
    // a full disk under the write-ahead file answers every call 500: the balancer should send them elsewhere
    checks.meter_file = s.meter.writable() ? 'ok' : 'down';
    const ready = Object.values(checks).every((v) => v === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });

  app.get('/metrics', async (_request, reply) => {
    return reply.type(s.metrics.contentType).send(await s.metrics.render(renderEmbedderGauge(s.semanticCache.embedderStatus) + '\n' + s.semanticCache.verification.render() + '\n'));
  });
}
