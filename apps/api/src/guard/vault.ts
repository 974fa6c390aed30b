// One call's redactions: each original value gets a stable placeholder (`[EMAIL_1]`; the
// same value twice gets the same one), and the answer's placeholders are turned back into
// the originals. The originals live only in this object, for the call's lifetime.
import type { PiiKind } from '@optimizer/schema';
import { detect } from './detectors.ts';

/** A placeholder as it appears in text; `[A-Z_]+` then `_n`. */
export const PLACEHOLDER = /\[(EMAIL|PHONE|CARD|IBAN|NATIONAL_ID|SECRET)_(\d{1,4})\]/g;
/** The longest placeholder (`[NATIONAL_ID_9999]`): a held-back tail never grows past it. */
const MAX_PLACEHOLDER = 18;

export class Vault {
  readonly #byOriginal = new Map<string, string>();
  readonly #byPlaceholder = new Map<string, string>();
  readonly #counts = new Map<PiiKind, number>();
  /** Placeholder-looking text the client itself sent: never issued, so never restored wrongly. */
  readonly #taken: Set<string>;

  constructor(taken: Set<string> = new Set()) {
    this.#taken = taken;
  }

  get size(): number {
    return this.#byPlaceholder.size;
  }

  /** How many values of each kind were redacted (kinds and counts only, never the values). */
  counts(): Map<PiiKind, number> {
    return this.#counts;
  }

  #placeholder(kind: PiiKind, original: string): string {
    const known = this.#byOriginal.get(original);
    if (known) return known;
    let n = this.#countOf(kind);
    let p: string;
    do p = `[${kind.toUpperCase()}_${++n}]`;
    while (this.#taken.has(p));
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1);
    this.#byOriginal.set(original, p);
    this.#byPlaceholder.set(p, original);
    return p;
  }

  #countOf(kind: PiiKind): number {
    let max = 0;
    const prefix = `[${kind.toUpperCase()}_`;
    for (const p of this.#byPlaceholder.keys()) if (p.startsWith(prefix)) max = Math.max(max, Number(p.slice(prefix.length, -1)));
    return max;
  }

  /** The text with every detected value replaced by its placeholder (the same string when nothing was found). */
  redact(text: string, kinds: readonly PiiKind[]): string {
    const spans = detect(text, kinds);
    if (spans.length === 0) return text;
    let out = '';
    let at = 0;
    for (const s of spans) {
      out += text.slice(at, s.start) + this.#placeholder(s.kind, text.slice(s.start, s.end));
      at = s.end;
    }
    return out + text.slice(at);
  }

  /** Plain text with its placeholders turned back into the originals. */
  restore(text: string): string {
    return text.replace(PLACEHOLDER, (p) => this.#byPlaceholder.get(p) ?? p);
  }

  /** JSON text with its placeholders turned back, each original escaped as a JSON string's content. */
  restoreJson(json: string): string {
    return json.replace(PLACEHOLDER, (p) => {
      const o = this.#byPlaceholder.get(p);
      return o === undefined ? p : JSON.stringify(o).slice(1, -1);
    });
  }

  /** A restorer for one streamed field, where a placeholder may arrive split across chunks. */
  streamRestorer(): StreamRestorer {
    return new StreamRestorer(this);
  }
}

/** Restores a text that arrives in pieces: a tail that may be the start of a placeholder is held until the next piece. */
export class StreamRestorer {
  readonly #vault: Vault;
  #pending = '';

  constructor(vault: Vault) {
    this.#vault = vault;
  }

  push(piece: string): string {
    const text = this.#pending + piece;
    const open = text.lastIndexOf('[');
    let cut = text.length;
    if (open !== -1 && text.length - open < MAX_PLACEHOLDER && /^\[[A-Z_]*\d*$/.test(text.slice(open))) cut = open;
    this.#pending = text.slice(cut);
    return this.#vault.restore(text.slice(0, cut));
  }

  /** What is still held back (the stream ended or the field finished). */
  flush(): string {
    const rest = this.#pending;
    this.#pending = '';
    return rest;
  }
}

/** Placeholder-looking strings already present in the client's text. */
export function placeholdersIn(text: string, into: Set<string>): void {
  for (const m of text.matchAll(PLACEHOLDER)) into.add(m[0]);
}
