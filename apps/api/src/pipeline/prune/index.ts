// Context pruning: deterministic edits to a chat request's messages that cut input
// tokens without an extra model call. See README.md beside this file.
import { dedupeMessages, dedupeToolOutputs } from './dedupe.ts';
import { estimateTokens, messageTokens } from './estimate.ts';
import { trimOldToolOutputs } from './trim.ts';
import { droppableTurns } from './turns.ts';
import type { Message, PruneOptions, PruneResult, PruneStep, PruneTransform } from './types.ts';
import { collapseWhitespaceStep } from './whitespace.ts';
import { guardOf, type Guard, type Item, type Settings, type Transform } from './work.ts';

export type { ContentPart, Message, PruneOptions, PruneResult, PruneStep, PruneTransform, Role, ToolCall } from './types.ts';
export { estimateTokens } from './estimate.ts';
export { collapseWhitespace } from './whitespace.ts';
export { trimText, prunedMarker } from './trim.ts';
export { sameOutputMarker } from './dedupe.ts';
export { droppableTurns } from './turns.ts';

export const DEFAULT_TOOL_OUTPUT_BUDGET_TOKENS = 2000;
export const DEFAULT_KEEP_RECENT_TOOL_OUTPUTS = 2;

/**
 * The in-place transforms, in the order one pass applies them. Whitespace goes first so
 * that messages differing only in it count as duplicates; trimming goes before
 * dedupe-tool-outputs so that an output repeated recently is kept whole there rather
 * than replaced by a pointer to an old copy that was cut.
 */
const PASS: readonly (readonly [PruneTransform, Transform])[] = [
  ['collapse-whitespace', collapseWhitespaceStep],
  ['dedupe-messages', dedupeMessages],
  ['trim-old-tool-outputs', trimOldToolOutputs],
  ['dedupe-tool-outputs', dedupeToolOutputs],
];

/** Passes are repeated until one changes nothing (usually the second), so pruning is idempotent. */
const MAX_PASSES = 8;

const NOUN: Record<PruneTransform, [one: string, many: string]> = {
  'collapse-whitespace': ['message had its whitespace runs collapsed', 'messages had their whitespace runs collapsed'],
  'dedupe-messages': ['repeated consecutive message removed', 'repeated consecutive messages removed'],
  'trim-old-tool-outputs': ['old tool output cut to head and tail', 'old tool outputs cut to head and tail'],
  'dedupe-tool-outputs': ['repeated tool output replaced by a pointer to its first copy', 'repeated tool outputs replaced by a pointer to their first copy'],
  'drop-oldest-turns': ['oldest turn dropped', 'oldest turns dropped'],
};

function count(n: number, name: PruneTransform): string {
  return `${n} ${NOUN[name][n === 1 ? 0 : 1]}`;
}

function itemTokens(items: readonly Item[]): number {
  return estimateTokens(items.map((i) => i.m));
}

interface InPlace {
  items: Item[];
  steps: PruneStep[];
}

/** Every in-place transform, pass after pass until nothing changes. */
function pruneInPlace(items: Item[], guard: Guard, settings: Settings): InPlace {
  const tally = new Map<PruneTransform, { changed: number; tokens: number }>();
  let current = items;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let changedInPass = 0;
    for (const [name, transform] of PASS) {
      const before = itemTokens(current);
      const r = transform(current, guard, settings);
      if (r.changed === 0) continue;
      changedInPass += r.changed;
      const t = tally.get(name) ?? { changed: 0, tokens: 0 };
      t.changed += r.changed;
      t.tokens += before - itemTokens(r.items);
      tally.set(name, t);
      current = r.items;
    }
    if (changedInPass === 0) break;
  }
  const steps: PruneStep[] = [];
  for (const [name] of PASS) {
    const t = tally.get(name);
    if (!t) continue;
    let detail = count(t.changed, name);
    if (name === 'trim-old-tool-outputs') detail += ` (budget ${settings.toolOutputBudgetTokens} tokens, last ${settings.keepRecentToolOutputs} kept whole)`;
    steps.push({ transform: name, tokensRemoved: t.tokens, detail });
  }
  return { items: current, steps };
}

function settingsOf(opts: PruneOptions): Settings {
  const budget = opts.toolOutputBudgetTokens ?? DEFAULT_TOOL_OUTPUT_BUDGET_TOKENS;
  const keep = opts.keepRecentToolOutputs ?? DEFAULT_KEEP_RECENT_TOOL_OUTPUTS;
  if (!Number.isFinite(budget) || budget < 1) throw new RangeError(`toolOutputBudgetTokens must be a number ≥ 1, got ${budget}`);
  if (!Number.isInteger(keep) || keep < 0) throw new RangeError(`keepRecentToolOutputs must be an integer ≥ 0, got ${keep}`);
  if (opts.contextTokens !== undefined && !(opts.contextTokens > 0)) throw new RangeError(`contextTokens must be > 0, got ${opts.contextTokens}`);
  return { toolOutputBudgetTokens: Math.floor(budget), keepRecentToolOutputs: keep };
}

/**
 * Prunes a chat request's messages. Pure and deterministic: the input is never
 * mutated, the same input gives the same output, and pruning the output again changes
 * nothing.
 *
 * In place: collapse-whitespace, dedupe-messages, trim-old-tool-outputs,
 * dedupe-tool-outputs (see each module). Then, when `contextTokens` is given and the
 * result is still above it, the fewest oldest turns are dropped for the in-place
 * transforms to bring it under (they are re-run on what is left, so no pointer
 * names a dropped tool call); when even dropping every turn but the last user's is
 * not enough, that is what is returned, above the limit — the caller decides.
 *
 * Never touched: system/developer messages (kept even when their turn is dropped),
 * the last user message, the last message, image and other non-text parts, tool_calls.
 * Never split: an assistant's tool_calls and their results are dropped together.
 *
 * `steps` lists each transform that changed something, in the order applied (a drop
 * comes first, since the rest were run on what it left), with the estimated tokens it
 * took off; they add up to tokensBefore − tokensAfter.
 */
export function prune(messages: readonly Message[], opts: PruneOptions = {}): PruneResult {
  const settings = settingsOf(opts);
  const guard = guardOf(messages);
  const tokensBefore = estimateTokens(messages);
  const all: Item[] = messages.map((m, origin) => ({ m, origin }));

  const full = pruneInPlace(all, guard, settings);
  const fullTokens = itemTokens(full.items);
  const limit = opts.contextTokens;
  if (limit === undefined || fullTokens <= limit) return result(full.items, full.steps, tokensBefore);

  const turns = droppableTurns(messages);
  if (turns.length === 0) return result(full.items, full.steps, tokensBefore);

  // A lower bound on how many turns must go: what each turn weighs after the in-place
  // transforms. Dropping a turn never makes the rest lighter (it can only un-dedupe or
  // un-trim them), so fewer turns cannot fit and the search starts there.
  const turnOf = new Map<number, number>();
  turns.forEach((t, k) => t.forEach((i) => turnOf.set(i, k)));
  const weight = new Array<number>(turns.length).fill(0);
  for (const item of full.items) {
    const k = turnOf.get(item.origin);
    if (k !== undefined) weight[k]! += messageTokens(item.m);
  }
  let k = 0;
  let projected = fullTokens;
  while (k < turns.length && projected > limit) projected -= weight[k++]!;

  for (; k <= turns.length; k++) {
    const dropped = new Set(turns.slice(0, k).flat());
    const kept = all.filter((item) => !dropped.has(item.origin));
    const rest = pruneInPlace(kept, guard, settings);
    if (itemTokens(rest.items) <= limit || k === turns.length) {
      const drop: PruneStep = {
        transform: 'drop-oldest-turns',
        tokensRemoved: tokensBefore - itemTokens(kept),
        detail: `${count(k, 'drop-oldest-turns')} (${dropped.size} messages) to fit contextTokens ${limit}${
          itemTokens(rest.items) > limit ? ': still above it with only the last user turn left' : ''
        }`,
      };
      return result(rest.items, [drop, ...rest.steps], tokensBefore);
    }
  }
  return result(full.items, full.steps, tokensBefore); // unreachable: k reaches turns.length above
}

function result(items: Item[], steps: PruneStep[], tokensBefore: number): PruneResult {
  const out = items.map((i) => i.m);
  return { messages: out, steps, tokensBefore, tokensAfter: estimateTokens(out) };
}
