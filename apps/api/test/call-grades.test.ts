// Grades on the call detail (spec 2.7): a routed call the judge graded lists the grades
// (kind, policy, score, source) that concern it; a pinned call lists none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from './support/gateway.ts';
import { startLearningRig, warmStep } from './support/optimizer.ts';
import type { Rig } from './support/vendor.ts';

describe('grades on the call detail', () => {
  let rig: Rig;
  beforeAll(async () => {
    ({ rig } = await startLearningRig());
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('lists the judge grades and probes of an exploring routed call, and none on a pinned call', async () => {
    const ask = (model: string) =>
      fetch(`${rig.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: authed(rig.tenant.api_key),
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Classify: great product' }], optimizer: { step: { id: 'classify' } } }),
      });
    warmStep(rig, 'classify'); // traffic enough for the step to explore: probes graded by the judge
    const routed = await ask('auto');
    expect(routed.status).toBe(200);
    const routedId = routed.headers.get('x-optimizer-call-id');
    const pinned = await ask('gpt-4.1-mini');
    const pinnedId = pinned.headers.get('x-optimizer-call-id');
    await rig.gw.learned(); // the probes and their grades come after the answer, and join its record once metered
    const calls = (await (await fetch(`${rig.gw.url}/v1/calls`, { headers: authed(rig.tenant.api_key) })).json()) as {
      data: { id: string; grades: { kind: string; scores?: Record<string, number | null> }[] }[];
    };
    const r = calls.data.find((c) => c.id === routedId)!;
    const probe = r.grades.find((g) => g.kind === 'probe');
    expect(probe, JSON.stringify(r.grades)).toBeDefined();
    expect(Object.keys(probe!.scores!).length).toBeGreaterThan(0); // each probed model, with its grade
    expect(JSON.stringify(r.grades)).not.toContain('correct'); // grades, never the answers' text
    expect(calls.data.find((c) => c.id === pinnedId)!.grades).toEqual([]);
  });
});
