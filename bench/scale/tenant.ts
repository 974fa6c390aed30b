// The tenant the load runs as, through the balancer: a signup, then agents whose keys split the
// load (a tenant of many agents, each a few hundred calls), and its calls read back page by page.
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

/** Every call of one agent, newest first: GET /v1/calls a page at a time (`starting_after` the last id of the one before). */
export async function agentCalls<T extends { id: string }>(origin: string, key: string, agentId: string): Promise<T[]> {
  const rows: T[] = [];
  for (let after = ''; ; ) {
    const page = (await api<{ data: T[] }>(origin, key, 'GET', `/v1/calls?agent=${agentId}&limit=${CALLS_PAGE}${after && `&starting_after=${after}`}`)).data;
    rows.push(...page);
    if (page.length < CALLS_PAGE) return rows;
    after = page.at(-1)!.id;
  }
}

/** Enough agents that `calls` spread over them leave each with a few hundred (a mix's repeats may favour some). */
export async function makeAgents(origin: string, key: string, calls: number, label: string): Promise<Agent[]> {
  const n = Math.max(1, Math.ceil(calls / (CALLS_PAGE * 0.6)));
  const agents: Agent[] = [];
  for (let i = 0; i < n; i++) {
    const r = await api<{ id: string; api_key: string }>(origin, key, 'POST', '/v1/agents', { name: `${label}-${i + 1}` });
    agents.push({ id: r.id, apiKey: r.api_key });
  }
  return agents;
}
