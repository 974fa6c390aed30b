// Starts the managed agents' runner (and their schedules' ticks) on the completion pipeline: a managed agent's LLM calls go
// through the same pipeline as a tenant's (routed, metered, guarded). Started by the app (app.ts)
// with the services; it takes what the pipeline uses (PipelineDeps) and the managed agents.
import type { PipelineDeps } from '../pipeline/deps.ts';
import type { ManagedAgents } from './managed-agents.ts';
import { completionHandler } from '../pipeline/completions.ts';
import { StepLedger } from './step-ledger.ts';

export function startManagedRuns(s: PipelineDeps & { managedAgents: ManagedAgents }): void {
  s.managedAgents.runner.attach(completionHandler(s), new StepLedger({ idempotency: s.idempotency, meter: s.meter, store: s.managedAgents.store }));
  s.managedAgents.runner.start(s.config.MANAGED_RUN_SWEEP_MS);
  s.managedAgents.schedules.start(s.config.MANAGED_RUN_SWEEP_MS);
}
