// Agents and their keys over GraphQL (spec 4.3). A key is shown once, in the create result.
import { agentKeyRef, createAgentInput, workflowRef } from '@optimizer/schema';
import { createAgent, createAgentKey, listAgentKeys, listAgents, revokeAgentKey } from '../../domain/agents.ts';
import type { AgentView } from '../../tenancy/accounts.ts';
import { type Builder, capability, reader } from '../builder.ts';

export function registerAgents(builder: Builder) {
  type KeyView = Awaited<ReturnType<typeof listAgentKeys>>[number];
  type CreatedAgent = Awaited<ReturnType<typeof createAgent>>;
  type CreatedKey = Awaited<ReturnType<typeof createAgentKey>>;

  const Agent = builder.objectRef<AgentView>('Agent').implement({
    fields: (t) => ({
      id: t.exposeString('id'),
      name: t.exposeString('name'),
      discoveryEnabled: t.exposeBoolean('discovery_enabled'),
      createdAt: t.exposeString('created_at'),
      calls: t.exposeFloat('calls'),
      baselineCost: t.exposeFloat('baseline_cost'),
      actualCost: t.exposeFloat('actual_cost'),
      saving: t.exposeFloat('saving'),
    }),
  });

  const AgentKey = builder.objectRef<KeyView>('AgentKey').implement({
    description: 'A key by its hint; the key itself is never shown again.',
    fields: (t) => ({ id: t.exposeString('id'), hint: t.exposeString('hint'), createdAt: t.exposeString('created_at'), revoked: t.exposeBoolean('revoked') }),
  });

  const NewAgent = builder.objectRef<CreatedAgent>('CreatedAgent').implement({
    fields: (t) => ({
      id: t.exposeString('id'),
      name: t.exposeString('name'),
      apiKey: t.exposeString('api_key', { description: 'The only copy of the key.' }),
      keyId: t.exposeString('key_id'),
    }),
  });

  const NewKey = builder.objectRef<CreatedKey>('CreatedKey').implement({
    fields: (t) => ({ id: t.exposeString('id'), apiKey: t.exposeString('api_key', { description: 'The only copy of the key.' }), hint: t.exposeString('hint') }),
  });

  const Revoked = builder.objectRef<{ id: string; revoked: true }>('RevokedKey').implement({
    fields: (t) => ({ id: t.exposeString('id'), revoked: t.exposeBoolean('revoked') }),
  });

  builder.queryFields((t) => ({
    agents: t.field({ type: [Agent], description: 'Agents with their call totals and savings.', resolve: reader(listAgents) }),
    agentKeys: t.field({ type: [AgentKey], args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, listAgentKeys) }),
  }));

  builder.mutationFields((t) => ({
    createAgent: t.field({ type: NewAgent, args: { name: t.arg.string({ required: true }) }, resolve: capability(createAgentInput, createAgent) }),
    createAgentKey: t.field({ type: NewKey, args: { id: t.arg.string({ required: true }) }, resolve: capability(workflowRef, createAgentKey) }),
    revokeAgentKey: t.field({ type: Revoked, args: { id: t.arg.string({ required: true }), keyId: t.arg.string({ required: true }) }, resolve: capability(agentKeyRef, revokeAgentKey) }),
  }));
}
