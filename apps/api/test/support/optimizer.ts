// Driving a step to a decision in tests: the traffic its exploration must pay back, and
// asking until the optimizer has settled it.
import { stepIdentity } from '../../src/optimizer/fingerprint.ts';
import { authed, signup } from './gateway.ts';
import { routeOnMockOpenAI, startRig, type Rig } from './vendor.ts';

/**
 * Tells the optimizer a step has already seen `calls` routed calls that each cost `micros` on
 * the baseline: the traffic its exploration must pay back (a real step earns it call by call).
 */
export function warmStep(rig: Rig, step: string | { body: Record<string, unknown> }, calls = 2000, micros = 2000): void {
  // a declared step id, or an unannotated request's shape
  const id = typeof step === 'string' ? stepIdentity(rig.tenant.workflow_id, { step: { id: step } }, {}) : stepIdentity(rig.tenant.workflow_id, undefined, step.body);
  const key = { accountId: rig.tenant.account_id, workflowId: rig.tenant.workflow_id, fingerprint: id.fingerprint, label: id.label, release: '' };
  for (let i = 0; i < calls; i++) rig.gw.services.optimizer.noteCall(key, micros);
}

/** The step registry's view of one step of the rig tenant's workflow. */
export async function stepView(rig: Rig, label: string): Promise<any> {
  const r = await fetch(`${rig.gw.url}/v1/workflows/${rig.tenant.workflow_id}/steps`, { headers: authed(rig.tenant.api_key) });
  return ((await r.json()) as { data: any[] }).data.find((s) => s.label === label);
}

/** Warms the step, then asks (`ask(i)`, i from `from`) `least` times and on until it has settled; the number of calls made. */
export async function learnStep(rig: Rig, step: string, ask: (i: number) => Promise<unknown>, from = 0, least = 0, max = 2000): Promise<number> {
  warmStep(rig, step);
  let i = from;
  for (; i < from + least; i++) await ask(i);
  while (i < from + max) {
    if ((await stepView(rig, step))?.settled) return i - from;
    for (const end = i + 25; i < end; i++) await ask(i);
  }
  throw new Error(`${step} did not settle in ${max} calls`);
}

/**
 * A rig whose tenant routes on the mock OpenAI vendor with a judge that passes every answer
 * (and a circuit that never opens while a test drives hundreds of calls), and a second tenant
 * for isolation checks. `env` adds to the gateway's environment (a payment processor, say).
 */
export async function startLearningRig(env: Record<string, string> = {}): Promise<{ rig: Rig; stranger: Awaited<ReturnType<typeof signup>> }> {
  const rig = await startRig({ env: { CIRCUIT_FAILURES: '1000', ...env } });
  const stranger = await signup(rig.gw, 'Other Co');
  const routed = await routeOnMockOpenAI(rig);
  if (routed.status !== 200) throw new Error(`routing settings answered ${routed.status}`);
  rig.vendor.script({ content: '{"score": 1, "reason": "correct"}' });
  return { rig, stranger };
}

/**
 * What a routed call spent exploring, read from its record once the learning it left after
 * its answer has ended and been metered (its answer's `optimizer` block is written before).
 */
export async function explorationOf(rig: Rig, callId: string, key = rig.tenant.api_key): Promise<number> {
  await rig.gw.learned();
  const r = await fetch(`${rig.gw.url}/v1/calls/${callId}`, { headers: authed(key) });
  if (r.status !== 200) throw new Error(`GET /v1/calls/${callId} answered ${r.status}`);
  return ((await r.json()) as { cost: { exploration: number } }).cost.exploration;
}
