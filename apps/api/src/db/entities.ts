// The domain's tables, one entity each (db/entities/*.ts by domain); migrations (db/migrations) make the
// tables and `entities.test.ts` holds every entity to its migrated table.
import { Account, Workflow, ApiKey, AdminKey, ProviderKey, TenantSetting, RoutingSetting, PlatformSetting } from './entities/tenancy.ts';
import { CallRecord, ActivityEntry, WorkflowEvent, CallTotal, CallRollup, CallLearning, QuarantinedRow } from './entities/calls.ts';
import { LedgerEntry, BillingProfile, AutoTopup, Subscription, FeeInvoice, StripeEvent } from './entities/billing.ts';
import { CatalogModel, CustomProvider, Step, EvidenceSample, CallOutcome, DiscoveryCredit, WorkflowReport } from './entities/optimizer.ts';
import { TenantConnection, ManagedAgent, ManagedRun, ManagedRunEvent, ManagedAction, ManagedRunCount, ManagedSchedule } from './entities/managed.ts';
import { AlertOutbox, AlertClaim, WebhookEndpoint, Recording } from './entities/alerts.ts';
import { SemanticCacheEntry, SemanticCacheStep } from './entities/cache.ts';
export * from './entities/tenancy.ts';
export * from './entities/calls.ts';
export * from './entities/billing.ts';
export * from './entities/optimizer.ts';
export * from './entities/managed.ts';
export * from './entities/alerts.ts';
export * from './entities/cache.ts';

export const entities = [
  Account, Workflow, ApiKey, AdminKey, ProviderKey, TenantSetting, RoutingSetting, PlatformSetting,
  CallRecord, ActivityEntry, WorkflowEvent, CallTotal, CallRollup, CallLearning, QuarantinedRow,
  LedgerEntry, BillingProfile, AutoTopup, Subscription, FeeInvoice, StripeEvent,
  CatalogModel, CustomProvider, Step, EvidenceSample, CallOutcome, DiscoveryCredit, WorkflowReport,
  TenantConnection, ManagedAgent, ManagedRun, ManagedRunEvent, ManagedAction, ManagedRunCount, ManagedSchedule,
  AlertOutbox, AlertClaim, WebhookEndpoint, Recording,
  SemanticCacheEntry, SemanticCacheStep,
];
