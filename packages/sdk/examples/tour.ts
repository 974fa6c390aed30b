// The README's tour as one runnable script: a completion inside a run, its outcome, the
// savings, a workflow's steps, and a 402 caught by its type; then the same reads and the
// same 402 through the typed tRPC client.
//   OPTIMIZER_URL=http://127.0.0.1:8080 OPTIMIZER_API_KEY=sk-opt-... node examples/tour.ts
import { OptimizerClient, OptimizerError } from '@optimizer/sdk';
import { createTrpcClient } from '@optimizer/sdk/trpc';

const client = new OptimizerClient({ baseURL: process.env.OPTIMIZER_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.OPTIMIZER_API_KEY ?? '' });

const run = client.run({ release: 'v1.0.0' });
const answer = await run.complete('triage', { model: 'auto', messages: [{ role: 'user', content: 'Classify this ticket: "I was charged twice"' }] }, { kind: 'classification' });
console.log(answer.choices[0]?.message.content);
console.log(`cost ${answer.optimizer.actual_cost} USD, baseline ${answer.optimizer.baseline_cost} USD, saving ${answer.optimizer.saving} USD`);
await run.outcome('triage', { schema_valid: true, score: 1 });

const savings = await client.savings.get();
console.log(`saved ${savings.saving} USD over ${savings.calls} calls`);

const [workflow] = await client.workflows.list();
if (!workflow) throw new Error('no workflow');
for (const step of await client.workflows.steps.list(workflow.id)) console.log(`${step.label}: ${step.calls} calls, settled=${step.settled}`);

try {
  await client.workflows.moveTo(workflow.id, 'production');
} catch (err) {
  if (err instanceof OptimizerError && err.status === 402 && err.type === 'subscription_required') console.log(`production needs a subscription (${err.endpoint})`);
  else throw err;
}

const trpc = createTrpcClient({ baseURL: process.env.OPTIMIZER_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.OPTIMIZER_API_KEY ?? '' });
const totals = await trpc.savings.query();
console.log(`tRPC: saved ${totals.saving} USD over ${totals.calls} calls`);
for (const step of await trpc.workflow.steps.query({ id: workflow.id })) console.log(`tRPC: ${step.label} has ${step.calls} calls, chosen model ${step.chosen ?? 'not yet'}`);
try {
  await trpc.workflow.moveTo.mutate({ id: workflow.id, stage: 'production' });
} catch (err) {
  if (err instanceof OptimizerError && err.type === 'subscription_required') console.log(`tRPC: production needs a subscription (${err.endpoint})`);
  else throw err;
}
