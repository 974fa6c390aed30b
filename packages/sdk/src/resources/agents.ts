// Agents (workflows) and their keys. A key's secret is shown once, at creation.
import { createAgentRequest } from '@optimizer/schema';
import { seg, validate, type Transport } from '../transport.ts';
import type { Output, Row } from '../trpc/outputs.ts';

/** One agent (workflow) with its totals in USD. */
export type Agent = Row<'agents.list'>;

/** A new agent and its first key, shown only this once. */
export type CreatedAgent = Output<'agents.create'>;

/** A new key, shown only this once. */
export type CreatedKey = Output<'agents.createKey'>;

/** One of an agent's keys: its hint, never the key. */
export type AgentKey = Row<'agents.keys'>;

export class Agents {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  list(): Promise<Agent[]> {
    return this.#t.list<Agent>({ method: 'GET', path: '/v1/agents', auth: 'tenant' });
  }

  async create(input: { name: string }): Promise<CreatedAgent> {
    const body = validate(createAgentRequest, input, 'POST /v1/agents');
    return this.#t.json<CreatedAgent>({ method: 'POST', path: '/v1/agents', auth: 'tenant', body });
  }

  createKey(agentId: string): Promise<CreatedKey> {
    return this.#t.json<CreatedKey>({ method: 'POST', path: `/v1/agents/${seg(agentId)}/keys`, auth: 'tenant' });
  }

  /** The workflow's steps as a graph of its calls: the real call tree when parents were declared. */
  graph(agentId: string): Promise<{ nodes: Array<Record<string, unknown>>; edges: Array<Record<string, unknown>>; [field: string]: unknown }> {
    return this.#t.json({ method: 'GET', path: `/v1/agents/${seg(agentId)}/graph`, auth: 'tenant' });
  }

  listKeys(agentId: string): Promise<AgentKey[]> {
    return this.#t.list<AgentKey>({ method: 'GET', path: `/v1/agents/${seg(agentId)}/keys`, auth: 'tenant' });
  }

  async revokeKey(agentId: string, keyId: string): Promise<void> {
    await this.#t.json<unknown>({ method: 'DELETE', path: `/v1/agents/${seg(agentId)}/keys/${seg(keyId)}`, auth: 'tenant' });
  }
}
