// The replay set: recorded answers of every model for every prompt, with their 0/1 score and
// token usage, and the price table. Also the lookup key shared by the replay vendor and the judge.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shuffled } from './prng.ts';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface Answer {
  text: string;
  score: number;
  usage: Usage;
}

export interface Message {
  role: string;
  content: string;
}

export interface Row {
  id: string;
  step: string;
  split: 'train' | 'test';
  messages: Message[];
  answers: Record<string, Answer>;
}

export interface Price {
  input_per_mtok: number;
  output_per_mtok: number;
}

export interface Models {
  baseline: string;
  models: Record<string, Price>;
}

export interface DataSet {
  models: Models;
  rows: Row[];
  /** Why rows were left out, one line each (empty when none were). */
  dropped: string[];
}

/** USD of one call: usage × price. */
export function callCost(usage: Usage, price: Price): number {
  return (usage.prompt_tokens * price.input_per_mtok + usage.completion_tokens * price.output_per_mtok) / 1e6;
}

/** USD of `model`'s recorded answer on `row`. */
export function rowCost(row: Row, model: string, models: Models): number {
  const a = row.answers[model];
  const p = models.models[model];
  if (!a || !p) throw new Error(`row ${row.id} has no answer or price for ${model}`);
  return callCost(a.usage, p);
}

/** The text of a message's content, whether a string or OpenAI content parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
      .join('');
  }
  return '';
}

/**
 * The lookup key of a prompt: a hash of JSON.stringify of its messages reduced to
 * {role, content-as-text}, so a gateway that re-serializes the body (key order, content parts)
 * still finds the row.
 */
export function promptKey(messages: readonly unknown[]): string {
  const canonical = messages.map((m) => {
    const o = (m ?? {}) as { role?: unknown; content?: unknown };
    return { role: String(o.role ?? ''), content: contentText(o.content) };
  });
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

/**
 * Loads replay.jsonl and models.json. Leaves out rows that lack a priced model's answer (the
 * vendor could not serve that model for them) and train rows whose prompt repeats a test prompt
 * (the vendor finds rows by prompt, and a repeat would leak the test answer into tuning).
 */
export function loadData(dir: string): DataSet {
  const { models, all } = readReplay(dir);
  return cleanRows(all, models);
}

/** replay.jsonl and models.json as they are, nothing left out. */
export function readReplay(dir: string): { models: Models; all: Row[] } {
  const models = JSON.parse(readFileSync(join(dir, 'models.json'), 'utf8')) as Models;
  if (!models.models[models.baseline]) throw new Error(`models.json: baseline ${models.baseline} has no price`);
  const all = readFileSync(join(dir, 'replay.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
  return { models, all };
}

export function cleanRows(all: Row[], models: Models, names: string[] = Object.keys(models.models)): DataSet {
  const dropped: string[] = [];
  const complete = all.filter((r) => names.every((m) => r.answers[m] !== undefined));
  if (complete.length < all.length) {
    const kept = new Set(complete);
    const missing = all.filter((r) => !kept.has(r));
    dropped.push(`${missing.length} rows lack some model's answer (${[...new Set(missing.map((r) => `${r.step}/${r.split}`))].join(', ')})`);
  }
  const testKeys = new Set(complete.filter((r) => r.split === 'test').map((r) => promptKey(r.messages)));
  const seen = new Set<string>();
  const rows: Row[] = [];
  let repeats = 0;
  for (const r of complete) {
    const k = promptKey(r.messages);
    if ((r.split === 'train' && testKeys.has(k)) || seen.has(k)) {
      repeats++;
      continue;
    }
    seen.add(k);
    rows.push(r);
  }
  if (repeats > 0) dropped.push(`${repeats} rows repeat another row's prompt (train copies of test prompts, or exact repeats)`);
  return { models, rows, dropped };
}

export function stepsOf(rows: readonly Row[]): string[] {
  return [...new Set(rows.map((r) => r.step))].sort();
}

/** `limit` rows of `rows`, stratified by step (each step keeps its share, at least one row), chosen with `rand`. */
export function subsample(rows: readonly Row[], limit: number | undefined, rand: () => number): Row[] {
  if (limit === undefined || limit >= rows.length) return rows.slice();
  const byStep = new Map<string, Row[]>();
  for (const r of rows) byStep.set(r.step, [...(byStep.get(r.step) ?? []), r]);
  const steps = [...byStep.keys()].sort();
  const quota = new Map(steps.map((s) => [s, Math.max(1, Math.floor((limit * byStep.get(s)!.length) / rows.length))]));
  // Hand the rounding remainder to the largest steps first.
  let left = limit - [...quota.values()].reduce((a, b) => a + b, 0);
  for (const s of [...steps].sort((a, b) => byStep.get(b)!.length - byStep.get(a)!.length)) {
    if (left <= 0) break;
    if (quota.get(s)! < byStep.get(s)!.length) {
      quota.set(s, quota.get(s)! + 1);
      left--;
    }
  }
  const keep = new Set<Row>();
  for (const s of steps) for (const r of shuffled(byStep.get(s)!, rand).slice(0, quota.get(s)!)) keep.add(r);
  return rows.filter((r) => keep.has(r));
}
