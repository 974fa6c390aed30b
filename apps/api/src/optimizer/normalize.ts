// When two answers say the same thing, for the agreement gate: case, surrounding
// whitespace and punctuation, a trailing ")" or "." after a choice letter, and code
// fences do not matter.

const memo = new Map<string, string>();
const MEMO_MAX = 20_000;

/** The comparable form of an answer (memoized: the optimizer compares the same probed answers often). */
export function normalizeAnswer(text: string): string {
  let n = memo.get(text);
  if (n === undefined) {
    n = normalize(text);
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(text, n);
  }
  return n;
}

function normalize(text: string): string {
  let t = text.trim();
  t = t.replace(/^```[a-z]*\n?|```$/gi, '').trim();
  const firstLine = t.split('\n')[0]!.trim();
  // a multiple-choice style answer: "B", "B)", "B.", "(B)", "Answer: B"
  const choice = /^(?:answer\s*[:-]\s*)?\(?([A-Za-z])\)?[.)]?$/.exec(firstLine);
  if (choice && t.split('\n').filter((l) => l.trim()).length === 1) return choice[1]!.toUpperCase();
  return t.toLowerCase().replace(/\s+/g, ' ').replace(/[.!?]+$/, '');
}

export function agree(a: string, b: string): boolean {
  return normalizeAnswer(a) === normalizeAnswer(b);
}
