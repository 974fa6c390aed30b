// Agents (workflows) and their keys. A key's secret is shown once, at creation.
import { createAgentRequest } from '@optimizer/schema';
import { seg, validate, type Transport } from '../transport.ts';

export interface Agent {
  id: string;
  name: string;
  discovery_enabled: boolean;
  created_at: string;
  calls: number;
  baseline_cost: number;
  actual_cost: number;
  saving: number;
}

export interface CreatedAgent {
  id: string;
  name: string;
  api_key: string;
  key_id: string;
}

export interface CreatedKey {
  id: string;
  api_key: string;
  hint: string;
}

export interface AgentKey {
  id: string;
  hint: string;
  created_at: string;
  revoked: boolean;
}

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

  listKeys(agentId: string): Promise<AgentKey[]> {
    return this.#t.list<AgentKey>({ method: 'GET', path: `/v1/agents/${seg(agentId)}/keys`, auth: 'tenant' });
  }

  async revokeKey(agentId: string, keyId: string): Promise<void> {
    await this.#t.json<unknown>({ method: 'DELETE', path: `/v1/agents/${seg(agentId)}/keys/${seg(keyId)}`, auth: 'tenant' });
  }
}
