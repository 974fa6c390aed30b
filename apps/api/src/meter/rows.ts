// The rows metering writes, shaped exactly like their tables (snake_case, ISO
// timestamps), so a batch goes to PostgreSQL as one JSON parameter.

export interface CallRow {
  id: string;
  account_id: string;
  workflow_id: string;
  created_at: string;
  requested_model: string;
  served_model: string | null;
  provider: string | null;
  stream: boolean;
  status: number;
  error_code: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  usage_estimated: boolean;
  baseline_micros: number;
  served_micros: number;
  actual_micros: number;
  exploration_micros: number;
  saving_micros: number;
  saving_source: string | null;
  cache_hit: boolean;
  reasons: string[];
  latency_ms: number;
  overhead_ms: number;
  vendor_status: number | null;
  idempotency_key: string | null;
  detail: Record<string, unknown>;
}

export interface ActivityRow {
  id: string;
  call_id: string;
  account_id: string;
  workflow_id: string;
  created_at: string;
  attempt: number;
  provider: string;
  model: string;
  status: number | null;
  outcome: string;
  latency_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_micros: number;
}

export interface EventRow {
  id: string;
  account_id: string;
  workflow_id: string;
  kind: string;
  created_at: string;
  call_id: string | null;
  payload: Record<string, unknown>;
}

export interface EvidenceRow {
  id: string;
  account_id: string;
  workflow_id: string;
  fingerprint: string;
  release: string;
  kind: 'probe' | 'served' | 'judge';
  created_at: string;
  sample: Record<string, unknown>;
}

export interface OutcomeRow {
  id: string;
  account_id: string;
  workflow_id: string;
  run_id: string;
  step_id: string;
  created_at: string;
  signals: Record<string, unknown>;
  score: number;
  call_ids: string[];
}

/** What capture settings keep of one call (spec 2.7 Recording); its id is the call's. */
export interface RecordingRow {
  id: string;
  account_id: string;
  workflow_id: string;
  created_at: string;
  fingerprint: string | null;
  step: string | null;
  content: 'metadata' | 'full';
  redacted: boolean;
  requested_model: string;
  served_model: string | null;
  status: number;
  error_code: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  meta: { messages: number; roles: string[] };
  request: Record<string, unknown> | null;
  response: Record<string, unknown> | null;
}

/**
 * One leg of a ledger transaction (billing/ledger.ts): its transaction's legs sum to zero.
 * A call's charge rides in the call's own write-ahead line, so money is as durable as the
 * call record and a replay inserts it once (ids are derived from the call id).
 */
export interface LedgerRow {
  id: string;
  txn_id: string;
  account_id: string;
  book: 'wallet' | 'dev_allowance' | 'revenue' | 'payments' | 'grants';
  amount_micros: number;
  kind: string;
  call_id: string | null;
  ref: string | null;
  created_at: string;
}

/**
 * What a call spent learning after its answer (probes, judge grades), metered once that work
 * ends (migration 0023): the meter applies it once to the call's record and running totals.
 */
export interface LearningRow {
  /** The call's id: one learning line per call. */
  id: string;
  call_created_at: string;
  account_id: string;
  workflow_id: string;
  created_at: string;
  exploration_micros: number;
  /** What the learning did, for the call's detail: its attempts, the grades it produced, its reasons. */
  detail: Record<string, unknown>;
  applied: false;
}

/** Everything one call (or outcome) meters, written to the write-ahead file as one line. */
export interface MeterBatch {
  calls: CallRow[];
  activity: ActivityRow[];
  events: EventRow[];
  evidence?: EvidenceRow[];
  outcomes?: OutcomeRow[];
  recordings?: RecordingRow[];
  ledger?: LedgerRow[];
  learning?: LearningRow[];
}

export const tables: Record<keyof MeterBatch, string> = {
  calls: 'call_records',
  activity: 'activity',
  events: 'workflow_events',
  evidence: 'evidence',
  outcomes: 'outcomes',
  recordings: 'recordings',
  ledger: 'ledger_entries',
  learning: 'call_learning',
};

/**
 * The unique key a replayed row conflicts on. The partitioned tables (migration 0017) are
 * unique on (id, created_at): a row's time is fixed when it is first recorded, so the same
 * line written twice conflicts on both.
 */
export const conflictKeys: Record<keyof MeterBatch, string> = {
  calls: 'id, created_at',
  activity: 'id, created_at',
  events: 'id',
  evidence: 'id',
  outcomes: 'id',
  recordings: 'id',
  ledger: 'id',
  learning: 'id',
};
