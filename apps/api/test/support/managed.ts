// Helpers for connections and managed-agent tests: a counting stub resolver, REST calls,
// waiting for a run, and reading a run's SSE events.
import { expect } from 'vitest';
import type { Resolver } from '../../src/providers/outbound.ts';
import { authed } from './gateway.ts';

/** A resolver that knows only the names it is given (a function per name: a rebinding name answers differently per lookup), and counts lookups. */
export function stubResolver(names: Record<string, string[] | (() => string[])>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = (async (host: string) => {
    asked.push(host);
    const found = names[host];
    if (!found) throw Object.assign(new Error(`stub resolver: no ${host}`), { code: 'ENOTFOUND' });
    return typeof found === 'function' ? found() : found;
  }) as Resolver & { asked: string[] };
  resolve.asked = asked;
  return resolve;
}

export function restFor(url: string, key: string) {
  return async (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
    const r = await fetch(`${url}${path}`, { method: init.method ?? 'GET', headers: authed(key, init.headers), ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
    const text = await r.text();
    return { status: r.status, body: (text ? JSON.parse(text) : null) as any };
  };
}

export type Rest = ReturnType<typeof restFor>;

/** Polls the run until its status is one of `statuses`. */
export async function waitForRun(rest: Rest, runId: string, statuses: string[] = ['completed', 'failed'], timeoutMs = 15_000): Promise<any> {
  let last: any = null;
  await expect
    .poll(
      async () => {
        last = (await rest(`/v1/managed-runs/${runId}`)).body;
        return statuses.includes(last.status);
      },
      { timeout: timeoutMs, interval: 50 },
    )
    .toBe(true);
  return last;
}

export interface SseEvent {
  id: number;
  event: string;
  data: any;
}

/** Reads a run's event stream until `stop(events)` or the stream ends; aborts the connection then. */
export async function readEvents(url: string, key: string, runId: string, opts: { lastEventId?: number; stop?: (events: SseEvent[]) => boolean } = {}): Promise<SseEvent[]> {
  const abort = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'text/event-stream' };
  if (opts.lastEventId !== undefined) headers['last-event-id'] = String(opts.lastEventId);
  const r = await fetch(`${url}/v1/managed-runs/${runId}/events`, { headers, signal: abort.signal });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const fields = Object.fromEntries(block.split('\n').filter((l) => l && !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]));
        if (fields.id === undefined) continue;
        events.push({ id: Number(fields.id), event: fields.event!, data: JSON.parse(fields.data!) });
        if (opts.stop?.(events)) {
          abort.abort();
          return events;
        }
      }
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
  return events;
}
