// Starts the managed agents' runner (and their schedules' ticks) on the completion pipeline: a managed agent's LLM calls go
// through the same pipeline as a tenant's (routed, metered, guarded). Wired by the app (app.ts),
// above both the services and the pipeline, so services.ts need not import the pipeline back.
import type { Services } from '../services.ts';
import { completionHandler } from '../pipeline/completions.ts';
import { StepLedger } from './step-ledger.ts';

export function startManagedRuns(s: Services): void {
  s.managedAgents.runner.attach(completionHandler(s), new StepLedger({ idempotency: s.idempotency, meter: s.meter, store: s.managedAgents.store }));
  s.managedAgents.runner.start(s.config.MANAGED_RUN_SWEEP_MS);
  s.managedAgents.schedules.start(s.config.MANAGED_RUN_SWEEP_MS);
}
