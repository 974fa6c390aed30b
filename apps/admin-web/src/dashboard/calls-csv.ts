// The calls view's CSV export: every call the filters select (all pages, not only those
// loaded), one row each, money in USD with every micro-dollar (as the API gives it).
import { gql } from './client.ts';
import { callListQuery } from './queries.ts';
import type { CallListQuery, CallListQueryVariables } from '../gql/graphql.ts';

export type CallRow = CallListQuery['calls'][number];
export type CallFilterVars = Omit<CallListQueryVariables, 'limit' | 'startingAfter'>;

const BATCH = 500;

/** Every call the filters select, newest first, read a page of 500 at a time. */
export async function allCalls(filters: CallFilterVars): Promise<CallRow[]> {
  const out: CallRow[] = [];
  for (;;) {
    const page = (await gql(callListQuery, { ...filters, limit: BATCH, ...(out.length ? { startingAfter: out.at(-1)!.id } : {}) })).calls;
    out.push(...page);
    if (page.length < BATCH) return out;
  }
}

const COLUMNS: [string, (c: CallRow) => string | number | boolean | null][] = [
  ['id', (c) => c.id],
  ['created_at', (c) => c.createdAt],
  ['agent', (c) => c.agent],
  ['step', (c) => c.step],
  ['run', (c) => c.run],
  ['model', (c) => c.model],
  ['routed_model', (c) => c.routedModel],
  ['provider', (c) => c.provider],
  ['status', (c) => c.status],
  ['error_code', (c) => c.errorCode],
  ['cache_hit', (c) => c.cache.hit],
  ['latency_ms', (c) => Math.round(c.latencyMs * 1000) / 1000],
  ['prompt_tokens', (c) => c.usage.promptTokens],
  ['completion_tokens', (c) => c.usage.completionTokens],
  ['baseline_cost', (c) => c.cost.baseline],
  ['actual_cost', (c) => c.cost.actual],
  ['exploration_cost', (c) => c.cost.exploration],
  ['saving', (c) => c.saving],
  ['saving_source', (c) => c.savingSource],
  ['policy', (c) => c.policy?.key ?? null],
  ['quality_bar', (c) => c.policy?.qualityBar ?? null],
  ['reasons', (c) => c.reasons.join(' | ')],
];

function cell(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function callsCsv(calls: readonly CallRow[]): string {
  return [COLUMNS.map(([h]) => h).join(','), ...calls.map((c) => COLUMNS.map(([, f]) => cell(f(c))).join(','))].join('\r\n') + '\r\n';
}

export function downloadText(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
