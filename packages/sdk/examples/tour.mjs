// The README's tour as one runnable script: a completion inside a run (its cost block and the
// gateway's call id), its outcome and the calls it was matched to, the call's reasons, the
// savings, a workflow's steps, and a 402 caught by its type; then the same reads and the same
// 402 through the typed tRPC client.
//   OPTIMIZER_URL=http://127.0.0.1:8080 OPTIMIZER_API_KEY=sk-opt-... node examples/tour.mjs
import { OptimizerClient, OptimizerError, policyModel } from '@optimizer/sdk';
import { createTrpcClient } from '@optimizer/sdk/trpc';

const baseURL = process.env.OPTIMIZER_URL ?? 'http://127.0.0.1:8080';
const apiKey = process.env.OPTIMIZER_API_KEY ?? '';
const client = new OptimizerClient({ baseURL, apiKey });

const run = client.run({ release: 'v1.0.0' });
const answer = await run.complete('triage', { model: 'auto', messages: [{ role: 'user', content: 'Classify this ticket: "I was charged twice"' }] }, { kind: 'classification' });
console.log(answer.choices[0]?.message.content);
console.log(`cost ${answer.optimizer.actual_cost} USD, baseline ${answer.optimizer.baseline_cost} USD, saving ${answer.optimizer.saving} USD`);
console.log(`call ${answer.call_id} served by ${answer.headers.get('x-optimizer-model')}`);

const outcome = await run.outcome('triage', { schema_valid: true, score: 1 });
console.log(`outcome scored ${outcome.score}, matched ${outcome.calls.length} call(s): ${outcome.calls.join(', ')}`);

const call = answer.call_id ? await client.calls.find(answer.call_id) : null;
if (call) console.log(`why: ${call.reasons[0] ?? 'no reason recorded'}`);

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

const trpc = createTrpcClient({ baseURL, apiKey });
const totals = await trpc.savings.query();
console.log(`tRPC: saved ${totals.saving} USD over ${totals.calls} calls`);
for (const step of await trpc.workflow.steps.query({ id: workflow.id })) console.log(`tRPC: ${step.label} has ${step.calls} calls, chosen model ${policyModel(step.chosen) ?? 'not yet'}`);
try {
  await trpc.workflow.moveTo.mutate({ id: workflow.id, stage: 'production' });
} catch (err) {
  if (err instanceof OptimizerError && err.type === 'subscription_required') console.log(`tRPC: production needs a subscription (${err.endpoint})`);
  else throw err;
}
