// The workflow list (spec 2.7): per workflow its stage, expected and settled steps, and
// whether it is ready. Read by the REST and tRPC doors alike.
import type { Services } from '../services.ts';

export interface WorkflowView {
  id: string;
  name: string;
  stage: 'tuning' | 'ready';
  steps_expected: number;
  steps_settled: number;
  ready: boolean;
}

export async function workflowList(s: Pick<Services, 'accounts' | 'steps'>, accountId: string): Promise<WorkflowView[]> {
  const [agents, summary] = await Promise.all([s.accounts.listAgents(accountId), s.steps.summary(accountId)]);
  return agents.map((a) => {
    const st = summary.get(a.id) ?? { steps_expected: 0, steps_settled: 0 };
    // ready: every expected step (seen, not excluded) has settled. The third stage,
    // 'production' (a managed subscription, design §9), needs billing, which is not built yet.
    const ready = st.steps_expected > 0 && st.steps_settled === st.steps_expected;
    return { id: a.id, name: a.name, stage: ready ? 'ready' : 'tuning', steps_expected: st.steps_expected, steps_settled: st.steps_settled, ready };
  });
}
