// Managed agents over REST: list and create agents, start a run (402 run_cap_reached with
// cap and used), the playground (its config checked before a run is counted), a run, its
// events over SSE (resumable with Last-Event-ID), and executing one proposed action.
import type { FastifyInstance } from 'fastify';
import { createManagedAgentRequest, playgroundRequest, startRunRequest } from '@optimizer/schema';
import { controlAuth, principalOf } from '../http/auth.ts';
import { parseWith } from '../http/validate.ts';
import { eventView } from '../managed/managed-agents.ts';
import type { Services } from '../services.ts';

const TERMINAL = new Set(['run.completed', 'run.failed']);
/** How often an open event stream looks for news another replica wrote, and sends a comment to keep proxies from closing it. */
const POLL_MS = 1_000;
const KEEPALIVE_MS = 15_000;

function lastEventId(header: unknown, query: unknown): number {
  const raw = typeof header === 'string' ? header : typeof query === 'string' ? query : '0';
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

export function registerManagedAgentRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);
  const m = s.managedAgents;
  /** Open event streams, ended when the server closes (a hijacked response is not Fastify's to end). */
  const open = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const end of open) end();
    done();
  });

  app.get('/v1/managed-agents', { onRequest }, async (request) => ({ data: await m.list(principalOf(request).accountId) }));

  app.post('/v1/managed-agents', { onRequest }, async (request, reply) => {
    const body = parseWith(createManagedAgentRequest, request.body);
    return reply.code(201).send(await m.create(principalOf(request), body.name, body.config));
  });

  app.post('/v1/managed-agents/playground', { onRequest }, async (request, reply) => {
    const body = parseWith(playgroundRequest, request.body); // before anything is counted
    return reply.code(202).send(await m.playground(principalOf(request), body.config, body.input));
  });

  app.post<{ Params: { id: string } }>('/v1/managed-agents/:id/runs', { onRequest }, async (request, reply) => {
    const body = parseWith(startRunRequest, request.body);
    return reply.code(202).send(await m.start(principalOf(request), request.params.id, body.input));
  });

  app.get<{ Params: { id: string } }>('/v1/managed-agents/:id/runs', { onRequest }, async (request) => ({ data: await m.runs(principalOf(request).accountId, request.params.id) }));

  app.get<{ Params: { id: string } }>('/v1/managed-runs/:id', { onRequest }, async (request) => m.view(principalOf(request).accountId, request.params.id));

  app.post<{ Params: { id: string; action: string } }>('/v1/managed-runs/:id/actions/:action/execute', { onRequest }, async (request) =>
    m.execute(principalOf(request).accountId, request.params.id, request.params.action),
  );

  app.get<{ Params: { id: string }; Querystring: { last_event_id?: string } }>('/v1/managed-runs/:id/events', { onRequest }, async (request, reply) => {
    const runId = (await m.own(principalOf(request).accountId, request.params.id)).id;
    let after = lastEventId(request.headers['last-event-id'], request.query.last_event_id);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    raw.write('retry: 1000\n\n');
    let closed = false;
    let wake: (() => void) | null = null;
    const onNews = () => wake?.();
    const onClose = () => {
      closed = true;
      wake?.();
    };
    m.store.news.on(runId, onNews);
    raw.on('close', onClose);
    open.add(onClose);
    let lastWrite = Date.now();
    try {
      for (;;) {
        const events = await m.eventsAfter(runId, after);
        let ended = false;
        for (const e of events) {
          raw.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(eventView(e))}\n\n`);
          after = e.seq;
          lastWrite = Date.now();
          if (TERMINAL.has(e.type)) ended = true;
        }
        if (ended || closed) break;
        if (events.length === 0) {
          if (Date.now() - lastWrite >= KEEPALIVE_MS) {
            raw.write(': keep-alive\n\n');
            lastWrite = Date.now();
          }
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, POLL_MS);
            wake = () => {
              clearTimeout(t);
              resolve();
            };
          });
          wake = null;
        }
      }
    } catch (err) {
      request.log.warn({ run: runId, err: (err as Error).message }, 'managed run event stream stopped');
    } finally {
      open.delete(onClose);
      m.store.news.off(runId, onNews);
      raw.off('close', onClose);
      if (!raw.writableEnded) raw.end();
    }
  });
}
