// A managed run's events over server-sent events (resumable with Last-Event-ID): REST's live
// stream, which is no capability (the capabilities, capabilities/managed.ts, serve the runs
// themselves and, to tRPC and GraphQL, the events page by page).
import type { FastifyInstance } from 'fastify';
import { controlAuth, principalOf } from '../http/auth.ts';
import { eventView } from '../managed/managed-agents.ts';
import type { Services } from '../services.ts';

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.cancelled']);
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
