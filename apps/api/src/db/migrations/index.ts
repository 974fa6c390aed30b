import { Foundation } from './0001-foundation.ts';
import { Events } from './0002-events.ts';
import { CustomProviders } from './0003-custom-providers.ts';
import { Optimizer } from './0004-optimizer.ts';
import { StepsDiscovery } from './0005-steps-discovery.ts';
import { SemanticCache } from './0006-semantic-cache.ts';
import { LookupIndexes } from './0007-lookup-indexes.ts';
import { CallTotals } from './0008-call-totals.ts';
import { WorkflowLife } from './0009-workflow-life.ts';
import { TenantSettings } from './0010-tenant-settings.ts';
import { Billing } from './0012-billing.ts';
import { Alerts } from './0013-alerts.ts';
import { Recordings } from './0014-recordings.ts';
import { ManagedAgents } from './0015-managed-agents.ts';
import { AutoTopup } from './0016-auto-topup.ts';
import { PartitionedCalls } from './0017-partitioned-calls.ts';
import { ActionOrder } from './0018-action-order.ts';
import { CallRollups } from './0019-call-rollups.ts';
import { MeterQuarantine } from './0020-meter-quarantine.ts';
import { SignupAllowance } from './0021-signup-allowance.ts';
import { EvidenceTexts } from './0022-evidence-texts.ts';
import { CallLearning } from './0023-call-learning.ts';

/** Every migration, in order. A new one is appended here; applied ones are never edited. */
export const migrations = [
  { name: '0001-foundation', class: Foundation },
  { name: '0002-events', class: Events },
  { name: '0003-custom-providers', class: CustomProviders },
  { name: '0004-optimizer', class: Optimizer },
  { name: '0005-steps-discovery', class: StepsDiscovery },
  { name: '0006-semantic-cache', class: SemanticCache },
  { name: '0007-lookup-indexes', class: LookupIndexes },
  { name: '0008-call-totals', class: CallTotals },
  { name: '0009-workflow-life', class: WorkflowLife },
  { name: '0010-tenant-settings', class: TenantSettings },
  { name: '0012-billing', class: Billing },
  { name: '0013-alerts', class: Alerts },
  { name: '0014-recordings', class: Recordings },
  { name: '0015-managed-agents', class: ManagedAgents },
  { name: '0016-auto-topup', class: AutoTopup },
  { name: '0017-partitioned-calls', class: PartitionedCalls },
  { name: '0018-action-order', class: ActionOrder },
  { name: '0019-call-rollups', class: CallRollups },
  { name: '0020-meter-quarantine', class: MeterQuarantine },
  { name: '0021-signup-allowance', class: SignupAllowance },
  { name: '0022-evidence-texts', class: EvidenceTexts },
  { name: '0023-call-learning', class: CallLearning },
];
