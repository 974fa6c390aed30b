// What the guards read (a text's features, extracted once) and what they answer.

export interface Verdict {
  ok: boolean;
  /** Which guard refused, e.g. "numbers", "negation", "antonym:gain/lose". */
  reason?: string;
}

/** Everything the guards look at, extracted once per text (the index keeps it per entry). */
export interface TextFeatures {
  raw: string;
  /** Lowercased word tokens, apostrophes kept ("don't"), numbers and versions whole ("3.11"). */
  words: string[];
  wordSet: Set<string>;
  /** Numbers, versions and digit-bearing tokens, normalised ("1,000" → "1000", "$5" → "5"). */
  numbers: string[];
  /** Code-like identifiers: snake_case, camelCase, dotted names, calls (lowercased). */
  identifiers: string[];
  negated: boolean;
  /** Content reference it does not carry ("the following program", "this image"). */
  deictic: string | undefined;
  /** Capitalised tokens that are not sentence-initial (lowercased), possible proper nouns. */
  entities: string[];
  /** Specific question words asked: how | why | when | where | who ("what"/"which" are generic). */
  questionWords: Set<string>;
  /** Content words in order (stopwords removed, relation words kept as markers). */
  content: string[];
}

export interface Guard {
  name: string;
  /** A reason to refuse, or undefined when the guard lets the pair through. */
  check(a: TextFeatures, b: TextFeatures): string | undefined;
}
