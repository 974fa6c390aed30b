// Agents and their keys (spec 4.3): a key is shown once, in the answer that made it. And a
// proxy agent's discovery mode (spec 4.6): the toggle, live progress and the settled report.
import { z } from 'zod';
import { agentKeyRef, createAgentInput, discoveryInput, workflowRef } from '@optimizer/schema';
import { createAgent, createAgentKey, listAgentKeys, listAgents, revokeAgentKey } from '../domain/agents.ts';
import { discoveryProgress, discoveryReport, setDiscovery } from '../domain/discovery.ts';
import { capability } from './capability.ts';
import { Agent, AgentKey, CreatedAgent, CreatedKey, DiscoveryProgress, DiscoveryReport, RevokedKey } from './views/agents.ts';

const tag = 'Agents';

export const agents = {
  list: capability({
    auth: 'control',
    output: z.array(Agent),
    run: listAgents,
    rest: { method: 'get', path: '/v1/agents', list: true, tag, summary: 'List agents with call totals and savings', answer: 'Every agent of the account.' },
    graphql: { name: 'agents', description: 'Agents with their call totals and savings.' },
  }),
  create: capability({
    auth: 'control',
    input: createAgentInput,
    output: CreatedAgent,
    run: createAgent,
    rest: {
      method: 'post',
      path: '/v1/agents',
      status: 201,
      noStore: true,
      tag,
      summary: 'Create an agent',
      description: 'The answer carries the only copy of its key.',
      answer: 'The agent (workflow) and its tenant key.',
      errors: ['conflict'],
    },
    graphql: { name: 'createAgent' },
  }),
  keys: capability({
    auth: 'control',
    input: workflowRef,
    output: z.array(AgentKey),
    run: listAgentKeys,
    rest: { method: 'get', path: '/v1/agents/:id/keys', list: true, tag, summary: "List an agent's keys (by hint, never the key)", answer: 'The keys.', errors: ['not_found'] },
    graphql: { name: 'agentKeys' },
  }),
  createKey: capability({
    auth: 'control',
    input: workflowRef,
    output: CreatedKey,
    run: createAgentKey,
    rest: { method: 'post', path: '/v1/agents/:id/keys', status: 201, noStore: true, tag, summary: 'Create another key for an agent', answer: 'The key, shown this once.', errors: ['not_found'] },
    graphql: { name: 'createAgentKey' },
  }),
  revokeKey: capability({
    auth: 'control',
    input: agentKeyRef,
    output: RevokedKey,
    run: revokeAgentKey,
    rest: { method: 'delete', path: '/v1/agents/:id/keys/:key_id', status: 204, tag, summary: 'Revoke a key', answer: 'Revoked.', errors: ['not_found'] },
    graphql: { name: 'revokeAgentKey' },
  }),
};

export const discovery = {
  progress: capability({
    auth: 'control',
    input: workflowRef,
    output: DiscoveryProgress,
    run: discoveryProgress,
    rest: { method: 'get', path: '/v1/proxy-agents/:id/discovery', tag: 'Discovery', summary: 'Live discovery progress', answer: 'Derived state, credit, every step seen.', errors: ['not_found'] },
    graphql: { name: 'discovery' },
  }),
  set: capability({
    auth: 'control',
    input: discoveryInput,
    output: DiscoveryProgress,
    run: setDiscovery,
    rest: { method: 'put', path: '/v1/proxy-agents/:id/discovery', tag: 'Discovery', summary: 'Turn discovery on or off', answer: 'The setting as read back, with the progress.', errors: ['not_found'] },
    graphql: { name: 'setDiscovery', description: 'Turns discovery on or off for a proxy agent and reads it back.' },
  }),
  report: capability({
    auth: 'control',
    input: workflowRef,
    output: DiscoveryReport,
    run: discoveryReport,
    rest: {
      method: 'get',
      path: '/v1/proxy-agents/:id/discovery/report',
      tag: 'Discovery',
      summary: 'Settled discovery answers',
      answer: 'Settled answers, priced deltas, reachability against current keys.',
      errors: ['not_found'],
    },
    graphql: { name: 'discoveryReport' },
  }),
};
