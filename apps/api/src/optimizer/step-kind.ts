// A step's kind of work where its calls declare none (`optimizer.step.kind`): read from what
// its requests ask for. The kind picks which catalog strength starts a candidate's prior and
// which of the tenant's steps a step shares priors with; without it a code step starts from
// models' general strengths and pools with the tenant's question-answering steps, where a
// model strong at one is often weak at the other. Only code is read: it is what a request
// says plainly, and where catalog strengths part most from the general ones. Pure.
import { textOf } from '../providers/openai-compatible/response.ts';

/** The kind read from a request that asks for code. */
export const CODE_KIND = 'code';

/** The calls a step's kind is read over: its first ones (a step's kind of work does not drift). */
const KIND_CALLS = 100;

/** A fenced block, or a line that opens like code. */
const CODE_TEXT = /```|^\s*(def |class \w|function \w|import \w|from \w+ import |#include|public (static )?\w|fn \w|func \w|SELECT .+ FROM )/m;
/** Asked for with a verb that makes or mends something, and a thing made of code, close together. */
const ASKS_FOR_CODE =
  /\b(write|implement|complete|fix|refactor|debug|generate|create|code)\b[^.?!\n]{0,60}?\b(functions?|programs?|scripts?|class(es)?|methods?|code|snippet|regex|regular expression|sql|query|algorithm|unit tests?)\b/i;
/** A language named right before a thing made of code ("a python function"). */
const LANGUAGE_ARTEFACT =
  /\b(python|javascript|typescript|java|c\+\+|c#|golang|go|rust|ruby|php|kotlin|swift|bash|shell|sql|haskell|scala|r)\s+(functions?|programs?|scripts?|code|class(es)?|methods?|query|queries|snippet|one-liner)\b/i;

/** What the request's last user message (and its system prompt) asks for: `code`, or nothing read. */
export function askedKind(body: Record<string, unknown>): string | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
  let last: string | undefined;
  const system: string[] = [];
  for (const m of messages) {
    if (m?.role === 'user') last = textOf(m.content) ?? '';
    else if (m?.role === 'system' || m?.role === 'developer') system.push(textOf(m.content) ?? '');
  }
  const text = [...system, last ?? ''].join('\n').slice(0, 20_000);
  return CODE_TEXT.test(text) || ASKS_FOR_CODE.test(text) || LANGUAGE_ARTEFACT.test(text) ? CODE_KIND : undefined;
}

/** How many of a step's first calls asked for code. */
export interface KindTally {
  calls: number;
  code: number;
}

export function newKindTally(): KindTally {
  return { calls: 0, code: 0 };
}

/** Counts a call's asked kind, over the step's first KIND_CALLS calls (`ask` reads the request only while they last). */
export function noteKind(t: KindTally, ask: () => string | undefined): void {
  if (t.calls >= KIND_CALLS) return;
  t.calls++;
  if (ask() === CODE_KIND) t.code++;
}

/** The step's kind as its calls read: code where most of them asked for code. */
export function readKind(t: KindTally): string | undefined {
  return t.calls > 0 && t.code * 2 > t.calls ? CODE_KIND : undefined;
}
