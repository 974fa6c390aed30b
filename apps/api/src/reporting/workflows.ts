// The workflow list (spec 2.7): per workflow its stage, expected and settled steps, and
// whether it is ready. Read by the REST and tRPC doors alike.
import type { StepRegistry } from '../optimizer/registry.ts';
import type { Accounts } from '../tenancy/accounts.ts';
import { deriveStage, type WorkflowLife } from '../workflows/life.ts';

export interface WorkflowView {
  id: string;
  name: string;
  stage: 'tuning' | 'ready' | 'production';
  steps_expected: number;
  steps_settled: number;
  ready: boolean;
}

export async function workflowList(s: { accounts: Accounts; steps: StepRegistry; workflowLife: WorkflowLife }, accountId: string): Promise<WorkflowView[]> {
  const [agents, summary, stored] = await Promise.all([s.accounts.listAgents(accountId), s.steps.summary(accountId), s.workflowLife.storedStages(accountId)]);
  return agents.map((a) => {
    const st = summary.get(a.id) ?? { steps_expected: 0, steps_settled: 0 };
    // ready: every expected step (seen, not excluded) has settled; production is stored (design §9)
    const ready = st.steps_expected > 0 && st.steps_settled === st.steps_expected;
    return { id: a.id, name: a.name, stage: deriveStage(stored.get(a.id) ?? 'tuning', st), steps_expected: st.steps_expected, steps_settled: st.steps_settled, ready };
  });
}
