// The tenant the load runs as, through the balancer: a signup, then agents whose keys split the
// load so no agent holds more calls than one GET /v1/calls page lists (the endpoint has no cursor).
import { randomUUID } from 'node:crypto';
import { request } from 'undici';

/** The largest page GET /v1/calls answers. */
export const CALLS_PAGE = 500;

export interface Agent {
  id: string;
  apiKey: string;
}

export async function api<T>(origin: string, key: string | undefined, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
  const res = await request(`${origin}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(key ? { authorization: `Bearer ${key}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function signup(origin: string): Promise<string> {
  const r = await api<{ api_key: string }>(origin, undefined, 'POST', '/v1/signup', { company: 'bench-scale', email: `scale-${randomUUID().slice(0, 8)}@example.com` });
  return r.api_key;
}

/** Enough agents that `calls` spread over them leave each well under a page (a mix's repeats may favour some). */
export async function makeAgents(origin: string, key: string, calls: number, label: string): Promise<Agent[]> {
  const n = Math.max(1, Math.ceil(calls / (CALLS_PAGE * 0.6)));
  const agents: Agent[] = [];
  for (let i = 0; i < n; i++) {
    const r = await api<{ id: string; api_key: string }>(origin, key, 'POST', '/v1/agents', { name: `${label}-${i + 1}` });
    agents.push({ id: r.id, apiKey: r.api_key });
  }
  return agents;
}
