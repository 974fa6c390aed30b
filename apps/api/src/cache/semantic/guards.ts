// Guards: cheap, pure checks that veto a cosine match between two questions that look
// alike but ask different things (hard negatives). A semantic-cache hit needs BOTH a
// similarity above the threshold and `admissible(query, cached).ok`.
//
// Each guard is a precision device: it may turn away a true paraphrase (a cache miss
// costs one upstream call), but should rarely let a different question through (a false
// hit serves a wrong answer).

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

// ---------------------------------------------------------------------------------------
// Data tables

/** Pairs of opposite / contrasting words (each side lists its inflections). */
export const ANTONYMS: ReadonlyArray<readonly [readonly string[], readonly string[]]> = [
  [['gain', 'gains', 'gained', 'gaining'], ['lose', 'loses', 'lost', 'losing', 'loss', 'reduce', 'reducing', 'cut', 'cutting', 'shed', 'shedding']],
  [['increase', 'increases', 'increased', 'increasing', 'boost', 'boosting', 'raise', 'raising'], ['decrease', 'decreases', 'decreased', 'decreasing', 'reduce', 'reduces', 'reduced', 'reducing', 'lower', 'lowering']],
  [['best'], ['worst']],
  [['good'], ['bad']],
  [['better'], ['worse']],
  [['before'], ['after']],
  [['buy', 'buying', 'bought', 'purchase', 'purchasing'], ['sell', 'selling', 'sold']],
  [['male', 'males'], ['female', 'females']],
  [['man', 'men'], ['woman', 'women']],
  [['boy', 'boys'], ['girl', 'girls']],
  [['husband'], ['wife']],
  [['boyfriend'], ['girlfriend']],
  [['father', 'dad'], ['mother', 'mom']],
  [['son', 'sons'], ['daughter', 'daughters']],
  [['brother', 'brothers'], ['sister', 'sisters']],
  [['he', 'him', 'his'], ['she', 'her', 'hers']],
  [['advantage', 'advantages', 'pros', 'benefits', 'benefit'], ['disadvantage', 'disadvantages', 'cons', 'drawbacks', 'drawback']],
  [['positive'], ['negative']],
  [['win', 'winning', 'won'], ['lose', 'losing', 'lost']],
  [['rich'], ['poor']],
  [['high', 'higher', 'highest'], ['low', 'lower', 'lowest']],
  [['more'], ['less', 'fewer']],
  [['most'], ['least']],
  [['start', 'starting', 'begin', 'beginning'], ['end', 'ending', 'stop', 'stopping', 'finish']],
  [['first'], ['last']],
  [['easy', 'easiest', 'easier'], ['hard', 'hardest', 'harder', 'difficult']],
  [['fast', 'faster', 'fastest', 'quick', 'quickly'], ['slow', 'slower', 'slowest', 'slowly']],
  [['cheap', 'cheaper', 'cheapest'], ['expensive', 'costly']],
  [['love', 'loves', 'like', 'likes'], ['hate', 'hates', 'dislike', 'dislikes']],
  [['import', 'imports', 'importing'], ['export', 'exports', 'exporting']],
  [['hot'], ['cold']],
  [['old', 'older', 'oldest'], ['young', 'younger', 'youngest', 'new', 'newer', 'newest']],
  [['max', 'maximum'], ['min', 'minimum']],
  [['long', 'longer', 'longest'], ['short', 'shorter', 'shortest']],
  [['big', 'bigger', 'biggest', 'large', 'larger', 'largest'], ['small', 'smaller', 'smallest', 'tiny']],
  [['early', 'earlier'], ['late', 'later']],
  [['true'], ['false']],
  [['right'], ['wrong']],
  [['legal'], ['illegal']],
  [['success', 'successful'], ['failure', 'fail', 'unsuccessful']],
  [['strong', 'stronger'], ['weak', 'weaker']],
  [['happy'], ['sad', 'unhappy']],
  [['input'], ['output']],
  [['upload', 'uploading'], ['download', 'downloading']],
  [['send', 'sending', 'sent'], ['receive', 'receiving', 'received']],
  [['lend', 'lending'], ['borrow', 'borrowing']],
  [['add', 'adding'], ['remove', 'removing', 'delete', 'deleting']],
  [['enable', 'enabling'], ['disable', 'disabling']],
  [['install', 'installing'], ['uninstall', 'uninstalling']],
  [['encrypt', 'encryption'], ['decrypt', 'decryption']],
  [['ascending'], ['descending']],
  [['north', 'northern'], ['south', 'southern']],
  [['east', 'eastern'], ['west', 'western']],
  [['inside', 'internal'], ['outside', 'external']],
  [['past'], ['future']],
  [['yesterday'], ['tomorrow']],
  [['day'], ['night']],
  [['introvert', 'introverts', 'introverted'], ['extrovert', 'extroverts', 'extroverted']],
  [['liberal', 'liberals'], ['conservative', 'conservatives']],
  [['democrat', 'democrats'], ['republican', 'republicans']],
  [['accept', 'accepted'], ['reject', 'rejected']],
  [['agree'], ['disagree']],
  [['friend', 'friends'], ['enemy', 'enemies']],
  [['safe', 'safest'], ['dangerous', 'unsafe']],
  [['public'], ['private']],
  [['online'], ['offline']],
  [['alive'], ['dead']],
  [['wet'], ['dry']],
  [['summer'], ['winter']],
  [['push'], ['pull']],
  [['entry'], ['exit']],
  [['open', 'opening'], ['close', 'closing']],
  [['teacher', 'teachers'], ['student', 'students']],
  [['employer', 'employers'], ['employee', 'employees']],
  [['parent', 'parents'], ['child', 'children', 'kids']],
];

/** Words that set the direction of a relation: swapping what stands on either side changes the question. */
export const RELATION_WORDS: ReadonlySet<string> = new Set(['than', 'to', 'from', 'into', 'over', 'instead', 'after', 'before', 'against', 'vs', 'versus', 'between']);

/**
 * Markers of a comparison that is symmetric when the question asks to choose or contrast
 * ("Which is better, A vs B?", "difference between A and B"): a swap around them is a
 * paraphrase, so they count only in questions without such a cue.
 */
const SYMMETRIC_MARKERS: ReadonlySet<string> = new Set(['vs', 'versus', 'between', 'from']);
const SYMMETRIC_CUES: ReadonlySet<string> = new Set([
  'which', 'or', 'and', 'difference', 'differences', 'differ', 'different', 'compare', 'compared', 'comparison', 'similar',
  'similarities', 'relationship', 'relation', 'far', 'distance',
]);

/** "to" marks a direction only with a verb of motion or change ("convert X to Y"), not as an infinitive. */
const DIRECTION_VERBS: ReadonlySet<string> = new Set([
  'convert', 'converting', 'translate', 'translating', 'switch', 'switching', 'move', 'moving', 'migrate', 'migrating',
  'transfer', 'transferring', 'change', 'changing', 'travel', 'travelling', 'traveling', 'go', 'going', 'send', 'sending', 'from',
]);

/** Verbs whose subject and object cannot trade places ("Do guys like girls?" vs "Do girls like guys?"). */
const RELATION_VERBS: ReadonlySet<string> = new Set([
  'like', 'likes', 'love', 'loves', 'hate', 'hates', 'prefer', 'prefers', 'marry', 'marries', 'date', 'dates', 'beat', 'beats',
  'attract', 'attracts', 'kill', 'kills', 'pay', 'pays', 'owe', 'owes', 'trust', 'trusts', 'fear', 'fears', 'respect', 'respects',
  'teach', 'teaches', 'defeat', 'defeats', 'replace', 'replaces', 'convert', 'converts', 'influence', 'influences', 'cause', 'causes',
]);

const NEGATIONS = new Set(['not', 'never', 'without', 'no', 'none', 'nobody', 'nothing', 'nowhere', 'neither', 'nor', 'cannot', 'cant', 'dont', 'doesnt', 'didnt', 'isnt', 'arent', 'wasnt', 'werent', 'wont', 'wouldnt', 'shouldnt', 'couldnt', 'havent', 'hasnt', 'hadnt', 'aint']);

const NON_NEGATING = /\b(?:why\s+or\s+why\s+not|whether\s+or\s+not|or\s+not|or\s+no|if\s+not|not\s+only|no\s+matter|no\s+longer|no\s+one\s+else)\b/g;

/**
 * Specific question words. "what" / "which" are left out on purpose: they stand in for all of
 * them ("What is the best way to…" = how, "What is the reason…" = why, "Which city…" = where).
 */
const QUESTION_WORDS: Record<string, string> = { how: 'how', why: 'why', when: 'when', where: 'where', who: 'who', whom: 'who', whose: 'who' };

const POINTED_NOUNS =
  'code|program|programme|snippet|script|function|query|equation|expression|formula|problem|question|puzzle|riddle|passage|text|paragraph|' +
  'article|essay|poem|song|lyrics|quote|sentence|phrase|word|image|picture|pic|photo|photograph|diagram|graph|chart|figure|table|file|' +
  'document|pdf|link|url|video|clip|screenshot|screen\\s?shot|attachment|error|output|log|list|data|example|statement|circuit|drawing|map|dream';

/** Phrases that point at content the question itself does not carry. */
const DEICTIC = new RegExp(
  [
    String.raw`\b(?:the|this|these|that)\s+(?:following|below|above)\b`,
    String.raw`\b(?:the|this|these|those)\s+(?:[\w-]+\s+){0,2}(?:below|above)\b`,
    String.raw`\b(?:following|attached|given|shown|mentioned|above|below|enclosed)\s+(?:${POINTED_NOUNS})s?\b`,
    String.raw`\b(?:${POINTED_NOUNS})s?\s+(?:below|above|here)\b`,
    String.raw`\b(?:this|these|that|those)\s+(?:${POINTED_NOUNS})s?\b`,
    String.raw`\battach(?:ed|ment|ments)\b`,
    String.raw`\b(?:see|shown|given|listed|mentioned|stated|described)\s+(?:below|above)\b`,
    String.raw`\b(?:in|on)\s+(?:the\s+)?(?:image|picture|pic|photo|diagram|figure|graph|screenshot|video|link)\b`,
    String.raw`\bhere(?:'s|\s+is|\s+are)\s+(?:my|the|a)\b`,
    // "What type of insect is this?": the question ends on a pointer to something unseen.
    String.raw`\b(?:is|are|was|were)\s+(?:this|that|these|those)\s*[?.!:)]*\s*$`,
  ].join('|'),
  'i',
);

const COORDINATORS = new Set(['and', 'or', 'vs', 'versus', 'nor', '&', 'between']);

const PERSON_WORDS = new Set(['i', 'me', 'you', 'he', 'him', 'she', 'her', 'we', 'us', 'they', 'them', 'someone', 'somebody', 'everyone', 'people']);

const STOPWORDS = new Set(
  (
    'a an the is are was were be been being am do does did doing done have has had having i me my mine myself we us our ours you your yours ' +
    'it its they them their theirs this that these those there here of in on at by for with about as into through during out off ' +
    'up down over under again further then once and or but if so because while until can could should would will shall may might must ' +
    'what which who whom whose when where why how any all both each few some such only own same very just also too s t ' +
    'get got getting one ones someone something anyone anything thing things way ways really actually'
  ).split(/\s+/),
);

/** Words whose presence on one side only does not change what is asked. */
const SOFT_WORDS = new Set(
  ('really actually exactly ever still even most best good great better some many much lot lots kind type sort ' +
    'possible possibly main major basic simple simply common usually generally like please tell know think ' +
    'anybody everyone everybody people person one\'s someone\'s yes ok okay now today currently nowadays').split(/\s+/),
);

const SENTENCE_COMMON = new Set(['i', "i'm", "i've", "i'd", "i'll", 'ok', 'okay', 'hi', 'hello']);

// ---------------------------------------------------------------------------------------
// Feature extraction

/**
 * The phrase by which a text points at content it does not carry, if any. Content that
 * follows the pointer in the text itself (a code block or a passage after a colon or line
 * break), or a "this X" whose X was named earlier in the text, is carried.
 */
function pointer(text: string): string | undefined {
  const m = DEICTIC.exec(text);
  if (!m) return undefined;
  const after = text.slice(m.index + m[0].length);
  if (/```|\n|:\s*\S/.test(after) && after.replace(/\s+/g, ' ').trim().length >= 40) return undefined;
  const demonstrative = /^(?:this|that|these|those)\s+(\w+?)s?$/i.exec(m[0].trim());
  if (demonstrative && new RegExp(`\\b${demonstrative[1]}`, 'i').test(text.slice(0, m.index))) return undefined;
  return m[0].trim().toLowerCase();
}

const TOKEN = /[$€£₹]?\d[\d,]*(?:\.\d+)*%?|[\p{L}\p{N}_]+(?:['’][\p{L}]+)?(?:[.\-+#][\p{L}\p{N}_+#]+)*[+#]*/gu;

function stripAccents(s: string): string {
  return s.normalize('NFD').replace(/\p{Mn}/gu, '');
}

export function analyze(text: string): TextFeatures {
  const clean = stripAccents(text).replace(/’/g, "'");
  const raw = clean.match(TOKEN) ?? [];
  const words = raw.map((w) => w.toLowerCase());
  const numbers: string[] = [];
  const identifiers: string[] = [];
  for (const w of raw) {
    if (/\d/.test(w)) {
      numbers.push(normaliseNumber(w));
    } else if (/^[A-Za-z_][\w]*(?:_\w+|\.[A-Za-z_]\w*\(?)+$/.test(w) || /^[a-z]+[A-Z][A-Za-z]*$/.test(w) || w.includes('_')) {
      identifiers.push(w.toLowerCase());
    }
  }
  for (const m of clean.matchAll(/\b([A-Za-z_]\w*)\s*\(\s*\)/g)) identifiers.push(`${m[1]!.toLowerCase()}()`);

  let negated = false;
  // "… or not?", "whether or not", "why or why not" ask both ways: not a negation.
  const negWords = (stripAccents(text).toLowerCase().replace(/’/g, "'").replace(NON_NEGATING, ' ').match(TOKEN) ?? []);
  for (const w of negWords) {
    const bare = w.replace(/'/g, '');
    if (NEGATIONS.has(bare) || w.endsWith("n't")) negated = true;
  }

  const deictic = pointer(clean);

  const entities: string[] = [];
  // Proper nouns: capitalised, not the first word of a sentence, not "I".
  const sentenceStart = /(?:^|[.?!:;"(]\s*)$/;
  for (const m of clean.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'&.+#-]*/gu)) {
    const tok = m[0].replace(/['.]s$|[.'-]+$/u, '');
    if (!/^\p{Lu}/u.test(tok)) continue;
    const before = clean.slice(0, m.index);
    if (sentenceStart.test(before)) continue;
    const lower = tok.toLowerCase();
    if (SENTENCE_COMMON.has(lower)) continue;
    entities.push(lower);
  }

  const questionWords = new Set<string>();
  for (const w of words) {
    const q = QUESTION_WORDS[w];
    if (q) questionWords.add(q);
  }

  const content = words.map((w) => w.replace(/'s$/, '')).filter((w) => RELATION_WORDS.has(w) || !STOPWORDS.has(w));

  return { raw: text, words, wordSet: new Set(words), numbers, identifiers, negated, deictic, entities, questionWords, content };
}

const NUMBER_WORDS: Record<string, string> = {
  two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: '10',
  eleven: '11', twelve: '12', twenty: '20', thirty: '30', forty: '40', fifty: '50',
};

const ORDINAL_WORDS: Record<string, string> = {
  second: '2', third: '3', fourth: '4', fifth: '5', sixth: '6', seventh: '7', eighth: '8', ninth: '9', tenth: '10',
};
const ORDINAL_DIGITS = /^(\d+)(?:st|nd|rd|th)$/;

function normaliseNumber(tok: string): string {
  let t = tok.toLowerCase().replace(/^[$€£₹]/, '').replace(/%$/, '');
  if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(t)) t = t.replace(/,/g, '');
  t = t.replace(/,+$/, '');
  return t;
}

// ---------------------------------------------------------------------------------------
// The guards

function sameMultiset(a: string[], b: string[]): boolean {
  if (a.length !== b.length) {
    // Repeats do not matter ("500 and 1000 notes… 500 notes"): compare as sets.
    const sa = new Set(a);
    const sb = new Set(b);
    if (sa.size !== sb.size) return false;
    for (const x of sa) if (!sb.has(x)) return false;
    return true;
  }
  const sa = [...a].sort();
  const sb = [...b].sort();
  return sa.every((x, i) => x === sb[i]);
}

/** Numbers spelled in one question and written in digits in the other still match. */
function numbersOf(f: TextFeatures): string[] {
  const out: string[] = [];
  for (const n of f.numbers) out.push(ORDINAL_DIGITS.exec(n)?.[1] ?? n);
  for (const w of f.words) {
    for (const part of w.split('-')) {
      const n = NUMBER_WORDS[part] ?? ORDINAL_WORDS[part];
      if (n) out.push(n);
    }
  }
  return out;
}

function antonymSwap(a: TextFeatures, b: TextFeatures): string | undefined {
  for (const [pos, neg] of ANTONYMS) {
    const aP = pos.some((w) => a.wordSet.has(w));
    const aN = neg.some((w) => a.wordSet.has(w));
    const bP = pos.some((w) => b.wordSet.has(w));
    const bN = neg.some((w) => b.wordSet.has(w));
    // One pole against the other, or one pole against both ("advantages" vs "advantages and disadvantages").
    if ((aP || aN) && (bP || bN) && (aP !== bP || aN !== bN)) return `${pos[0]}/${neg[0]}`;
  }
  return undefined;
}

/**
 * "A better than B" vs "B better than A": around a relation word (than, to, from, vs, …) or
 * a relation verb (like, beat, …) present in both, a content word moves from the left side
 * to the right and another moves back.
 */
function swappedRoles(a: TextFeatures, b: TextFeatures): string | undefined {
  const t = transposition(a, b);
  if (t) return t;
  const symmetric = (f: TextFeatures): boolean => [...SYMMETRIC_CUES].some((w) => f.wordSet.has(w));
  for (const r of a.content) {
    if (!RELATION_WORDS.has(r) && !RELATION_VERBS.has(r)) continue;
    if (SYMMETRIC_MARKERS.has(r) && (symmetric(a) || symmetric(b))) continue;
    if (r === 'to' && !(a.words.some((w) => DIRECTION_VERBS.has(w)) && b.words.some((w) => DIRECTION_VERBS.has(w)))) continue;
    const ia = a.content.indexOf(r);
    const ib = b.content.indexOf(r);
    // One occurrence on each side, so "left" and "right" are well defined.
    if (ib < 0 || a.content.lastIndexOf(r) !== ia || b.content.lastIndexOf(r) !== ib) continue;
    const side = (c: string[], from: number, to: number): Set<string> => new Set(c.slice(from, to).filter((w) => !RELATION_WORDS.has(w)));
    const leftA = side(a.content, 0, ia);
    const rightA = side(a.content, ia + 1, a.content.length);
    const leftB = side(b.content, 0, ib);
    const rightB = side(b.content, ib + 1, b.content.length);
    const movedRight = [...leftA].some((w) => rightB.has(w) && !leftB.has(w) && !rightA.has(w));
    const movedLeft = [...rightA].some((w) => leftB.has(w) && !rightB.has(w) && !leftA.has(w));
    if (movedRight && movedLeft) return r;
  }
  return undefined;
}

/**
 * The two word sequences (words that occur in only one of them dropped) are the same but for
 * one or two pairs of words that trade places, with no "and"/"or"/"vs" between them:
 * "Do Indian women find Pakistani men attractive?" vs "Do Pakistani women find Indian men
 * attractive?". Prepositional phrases that move whole ("for BBA in India" / "in India for
 * BBA") are not a transposition, because their prepositions move with them.
 */
function transposition(a: TextFeatures, b: TextFeatures): string | undefined {
  const sa = [...new Set(a.words.map(stem))];
  const sb = [...new Set(b.words.map(stem))];
  const inA = new Set(sa);
  const inB = new Set(sb);
  const x = sa.filter((w) => inB.has(w));
  const y = sb.filter((w) => inA.has(w));
  // Near-identical wording only: at most two words of either question are not in the other.
  if (sa.length - x.length > 2 || sb.length - y.length > 2) return undefined;
  if (x.length !== y.length || x.length < 3) return undefined;
  const diff: number[] = [];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) diff.push(i);
  if (diff.length !== 2 && diff.length !== 4) return undefined;
  const swaps: string[] = [];
  const used = new Set<number>();
  for (const i of diff) {
    if (used.has(i)) continue;
    const j = diff.find((k) => k !== i && !used.has(k) && x[i] === y[k] && x[k] === y[i]);
    if (j === undefined) return undefined;
    used.add(i).add(j);
    const pronouns = PERSON_WORDS.has(x[i]!) && PERSON_WORDS.has(x[j]!);
    if (!pronouns && (STOPWORDS.has(x[i]!) || STOPWORDS.has(x[j]!))) return undefined;
    // The frame between the two stays and holds a content word ("women find", "polite than"):
    // adjacent words trading places is rewording ("apology letter" / "letter … apology").
    const between = x.slice(Math.min(i, j) + 1, Math.max(i, j));
    if (!between.some((w) => !STOPWORDS.has(w))) return undefined;
    if (coordinated(sa, x[i]!, x[j]!) || coordinated(sb, x[i]!, x[j]!)) return undefined;
    swaps.push(`${x[i]}<>${x[j]}`);
  }
  return swaps.join(',');
}

const MODAL_CLASS: Record<string, string> = {
  should: 'should', shall: 'should', must: 'should', ought: 'should',
  will: 'will', would: 'will', "won't": 'will', "wouldn't": 'will',
  can: 'can', could: 'can', may: 'can', might: 'can', "can't": 'can', "couldn't": 'can',
  do: 'fact', does: 'fact', did: 'fact', is: 'fact', are: 'fact', was: 'fact', were: 'fact', am: 'fact', has: 'fact', have: 'fact', had: 'fact',
  "don't": 'fact', "doesn't": 'fact', "didn't": 'fact', "isn't": 'fact', "aren't": 'fact',
};

/** Yes/no questions opening on different modals: "Should Netflix…?" (advice) vs "Will Netflix…?" (prediction). */
function modalMismatch(a: TextFeatures, b: TextFeatures): string | undefined {
  const ma = MODAL_CLASS[a.words[0] ?? ''];
  const mb = MODAL_CLASS[b.words[0] ?? ''];
  if (ma && mb && ma !== mb) return `${a.words[0]}/${b.words[0]}`;
  return undefined;
}

const TENSE: Record<string, string> = {
  do: 'present', does: 'present', is: 'present', are: 'present', am: 'present', "don't": 'present', "doesn't": 'present', "isn't": 'present', "aren't": 'present',
  did: 'past', was: 'past', were: 'past', had: 'past', "didn't": 'past', "wasn't": 'past', "weren't": 'past',
  has: 'perfect', have: 'perfect', "hasn't": 'perfect', "haven't": 'perfect',
};

/** The question's auxiliary in another tense: "Does meditation help?" vs "Has meditation helped?", "How does one…" vs "How did you…". */
function tenseShift(a: TextFeatures, b: TextFeatures): string | undefined {
  const aux = (f: TextFeatures): string | undefined => {
    const w0 = f.words[0] ?? '';
    if (TENSE[w0]) return w0;
    return QUESTION_WORDS[w0] || w0 === 'what' || w0 === 'which' ? (TENSE[f.words[1] ?? ''] ? f.words[1] : undefined) : undefined;
  };
  const xa = aux(a);
  const xb = aux(b);
  return xa && xb && TENSE[xa] !== TENSE[xb] ? `${xa}/${xb}` : undefined;
}

/** "Is Jackie Chan humble?" (yes/no) vs "Why is Jackie Chan so humble?" / "How does Google hire…?" (manner). */
function yesNoVsWh(a: TextFeatures, b: TextFeatures): string | undefined {
  const kind = (f: TextFeatures): string | undefined => {
    const w0 = f.words[0] ?? '';
    if (MODAL_CLASS[w0]) return 'yes-no';
    if (w0 === 'why') return 'why';
    if (w0 === 'how' && MODAL_CLASS[f.words[1] ?? '']) return 'how';
    return undefined;
  };
  const ka = kind(a);
  const kb = kind(b);
  if (ka && kb && ka !== kb && (ka === 'yes-no' || kb === 'yes-no')) return `${ka}/${kb}`;
  return undefined;
}

/**
 * Whose question it is: first person ("How do I …", "my mother"), second ("your mother"), or
 * nobody's. Tuned on qqp_dev: "How do I test an Android app?" and "How do you test your
 * Android app?" are labelled different questions often enough that a change of person is a miss.
 */
function personShift(a: TextFeatures, b: TextFeatures): string | undefined {
  const p = (f: TextFeatures): string => {
    const first = FIRST_PERSON.some((w) => f.wordSet.has(w));
    const second = SECOND_PERSON.some((w) => f.wordSet.has(w));
    return first && !second ? '1' : second && !first ? '2' : first && second ? '12' : '0';
  };
  const pa = p(a);
  const pb = p(b);
  // First against second person, or first person against nobody ("good cigars for me" / "good cigars").
  if ((pa === '1' && pb === '2') || (pa === '2' && pb === '1') || (pa === '0' && pb === '1') || (pa === '1' && pb === '0')) return `${pa}/${pb}`;
  // Second person against nobody, in questions: "your favourite horror movie?" asks for an opinion,
  // "the best horror movies?" does not. (In statements "you" is mostly generic: "you can set …".)
  const asks = (f: TextFeatures) => /\?\s*$/.test(f.raw);
  return ((pa === '2' && pb === '0') || (pa === '0' && pb === '2')) && asks(a) && asks(b) ? `${pa}/${pb}` : undefined;
}
const FIRST_PERSON = ['i', 'me', 'my', 'mine', 'myself', "i'm", "i've", 'we', 'us', 'our'];
const SECOND_PERSON = ['you', 'your', 'yours', 'yourself', "you're", "you've"];

function substitution(a: TextFeatures, b: TextFeatures): string | undefined {
  const { onlyA, onlyB } = contentDiff(a, b);
  return onlyA.length === 1 && onlyB.length === 1 ? `${onlyA[0]}/${onlyB[0]}` : undefined;
}
function countQuestions(f: TextFeatures): number {
  return Math.max(1, f.raw.split(/\?+/).filter((p) => /[\p{L}\p{N}]{2,}/u.test(p)).length);
}
function questionCount(a: TextFeatures, b: TextFeatures): string | undefined {
  const qa = countQuestions(a);
  const qb = countQuestions(b);
  return qa !== qb ? `${qa}/${qb}` : undefined;
}
/**
 * The opening question word ("which" = "what"). "What is the best way to …" against "How do
 * I …" counts as a difference too: on qqp_dev such pairs are labelled different often enough
 * that serving them costs more precision than the recall it buys.
 */
function leadWord(a: TextFeatures, b: TextFeatures): string | undefined {
  const lead = (f: TextFeatures): string | undefined => {
    const w = f.words[0] ?? '';
    return w === 'which' ? 'what' : ['what', 'how', 'why', 'when', 'where', 'who'].includes(w) ? w : undefined;
  };
  const la = lead(a);
  const lb = lead(b);
  return la && lb && la !== lb ? `${la}/${lb}` : undefined;
}

/** One question is the other plus extra content words ("… buy steroids" vs "… buy steroids online"). */
function addedQualifier(a: TextFeatures, b: TextFeatures): string | undefined {
  const { onlyA, onlyB } = contentDiff(a, b);
  if (onlyA.length > 0 && onlyB.length === 0) return `+${onlyA.join(',')}`;
  if (onlyB.length > 0 && onlyA.length === 0) return `+${onlyB.join(',')}`;
  return undefined;
}

/**
 * Each question's content words (distinct stems: no stopwords, relation words, soft words,
 * negations or numbers), and those with no counterpart (same word, inflection, typo, or the
 * same side of the antonym table) in the other.
 */
export function contentDiff(a: TextFeatures, b: TextFeatures): { a: string[]; b: string[]; onlyA: string[]; onlyB: string[] } {
  const bag = (f: TextFeatures): string[] => [
    ...new Set(f.content.filter((w) => !RELATION_WORDS.has(w) && !SOFT_WORDS.has(w) && !NEGATIONS.has(w.replace(/'/g, '')) && !/\d/.test(w)).map(stem)),
  ];
  const ca = bag(a);
  const cb = bag(b);
  const match = (w: string, v: string): boolean => sameWord(w, v) || samePole(w, v);
  return { a: ca, b: cb, onlyA: ca.filter((w) => !cb.some((v) => match(w, v))), onlyB: cb.filter((w) => !ca.some((v) => match(w, v))) };
}

/** Stemmed word → index of the antonym-table side it is on ("quick" and "fast" share one). */
let poles: Map<string, number> | undefined;

function samePole(x: string, y: string): boolean {
  if (!poles) {
    const m = new Map<string, number>();
    ANTONYMS.forEach(([pos, neg], i) => {
      for (const w of pos) m.set(stem(w), 2 * i);
      for (const w of neg) m.set(stem(w), 2 * i + 1);
    });
    poles = m;
  }
  const px = poles.get(x);
  return px !== undefined && px === poles.get(y);
}

/** Same word up to inflection, derivation sharing a long stem, or a one-letter typo. */
export function sameWord(x: string, y: string): boolean {
  if (x === y) return true;
  let p = 0;
  while (p < x.length && p < y.length && x[p] === y[p]) p++;
  const short = Math.min(x.length, y.length);
  const long = Math.max(x.length, y.length);
  if (p >= 4 && p === short) return true; // exam / examination, japan / japanese
  if (p >= 6 && p >= 0.7 * long) return true; // electricity / electrical
  return short >= 6 && damerau1(x, y);
}

/** Edit distance (with adjacent transposition) at most 1. */
function damerau1(x: string, y: string): boolean {
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  if (x.length === y.length) {
    if (x.slice(i + 1) === y.slice(i + 1)) return true;
    return x[i] === y[i + 1] && x[i + 1] === y[i] && x.slice(i + 2) === y.slice(i + 2);
  }
  return x.length > y.length ? x.slice(i + 1) === y.slice(i) : x.slice(i) === y.slice(i + 1);
}

/** "A or B", "A and B", "A vs B": the two stand side by side, order does not matter. */
function coordinated(words: string[], p: string, q: string): boolean {
  const i = words.indexOf(p);
  const j = words.indexOf(q);
  if (i < 0 || j < 0) return false;
  return words.slice(Math.min(i, j) + 1, Math.max(i, j)).some((w) => COORDINATORS.has(w));
}

const IRREGULAR: Record<string, string> = { women: 'woman', men: 'man', children: 'child', people: 'person', feet: 'foot', teeth: 'tooth', mice: 'mouse', lives: 'life', wives: 'wife', knives: 'knife' };

/** Light suffix stripping: plural, -ing, -ed, -ly, final -e ("making" / "make" → "mak"). */
export function stem(w: string): string {
  const irregular = IRREGULAR[w];
  if (irregular) return irregular;
  let s = w.replace(/'s$/, '');
  if (s.length > 4 && s.endsWith('ies')) s = `${s.slice(0, -3)}y`;
  else if (s.length > 3 && s.endsWith('s') && !/(?:ss|us|is)$/.test(s)) s = s.slice(0, -1);
  if (s.length > 5 && s.endsWith('ing')) s = s.slice(0, -3);
  else if (s.length > 4 && s.endsWith('ed')) s = s.slice(0, -2);
  else if (s.length > 4 && s.endsWith('ly')) s = s.slice(0, -2);
  if (s.length > 3 && s.endsWith('e')) s = s.slice(0, -1);
  return s;
}

/** "How …?" vs "Why …?": both ask a specific question word and they share none. */
function questionWordMismatch(a: TextFeatures, b: TextFeatures): string | undefined {
  if (a.questionWords.size === 0 || b.questionWords.size === 0) return undefined;
  for (const q of a.questionWords) if (b.questionWords.has(q)) return undefined;
  return `${[...a.questionWords].join('+')}/${[...b.questionWords].join('+')}`;
}

function entityMismatch(a: TextFeatures, b: TextFeatures): string | undefined {
  const missing = (x: TextFeatures, y: TextFeatures): string | undefined => x.entities.find((e) => !mentions(y, e));
  const inA = missing(a, b);
  const inB = missing(b, a);
  // A different name on each side ("Trump" vs "Clinton"); an extra qualifier on one side
  // alone ("Donald Trump" vs "Trump") is left to the similarity threshold.
  if (inA && inB) return `${inA}/${inB}`;
  return undefined;
}

function mentions(f: TextFeatures, entity: string): boolean {
  if (f.wordSet.has(entity)) return true;
  const e = stem(entity);
  if (f.words.some((w) => sameWord(stem(w), e))) return true;
  const joined = f.words.join(' ');
  return joined.includes(entity) || joined.replace(/ /g, '').includes(entity.replace(/[\s.-]/g, ''));
}

/** Words that fix a number's role: "in 10 years" vs "after 10 years", "under $500" vs "over $500". */
const NUMBER_RELATIONS: ReadonlySet<string> = new Set(['in', 'after', 'before', 'within', 'by', 'until', 'till', 'under', 'over', 'above', 'below', 'than', 'since', 'from', 'to', 'upto', 'least', 'most', 'about', 'around', 'nearly', 'almost', 'past', 'next', 'last']);

const RELATION_SYNONYMS: Record<string, string> = { below: 'under', above: 'over', till: 'until', within: 'in' };

/** The same number with a different relation word right before it ("in 10 years" / "after 10 years"). */
function numberRelation(a: TextFeatures, b: TextFeatures): string | undefined {
  const rel = (f: TextFeatures): Map<string, string> => {
    const m = new Map<string, string>();
    f.words.forEach((w, i) => {
      if (i === 0 || !/\d/.test(w)) return;
      const prev = f.words[i - 1]!;
      if (NUMBER_RELATIONS.has(prev)) m.set(normaliseNumber(w), RELATION_SYNONYMS[prev] ?? prev);
    });
    return m;
  };
  const ra = rel(a);
  const rb = rel(b);
  for (const [n, r] of ra) {
    const other = rb.get(n);
    if (other !== undefined && other !== r) return `${r} ${n}/${other} ${n}`;
  }
  return undefined;
}

/** People who act and are acted on: "someone asked you" vs "you asked someone". */
const ROLE_PEOPLE: ReadonlySet<string> = new Set(['i', 'me', 'you', 'he', 'him', 'she', 'her', 'we', 'us', 'they', 'them', 'someone', 'somebody', 'anyone', 'anybody', 'everyone', 'everybody', 'people']);
const ROLE_CANON: Record<string, string> = { me: 'i', him: 'he', her: 'she', us: 'we', them: 'they', somebody: 'someone', anybody: 'anyone', everybody: 'everyone' };

function peopleOrder(a: TextFeatures, b: TextFeatures): string | undefined {
  const seq = (f: TextFeatures): string[] => {
    const out: string[] = [];
    for (const w of f.words) if (ROLE_PEOPLE.has(w)) out.push(ROLE_CANON[w] ?? w);
    return out.filter((w, i) => out.indexOf(w) === i);
  };
  const sa = seq(a);
  const sb = seq(b);
  if (sa.length < 2 || sa.length !== sb.length || !sa.every((w) => sb.includes(w))) return undefined;
  return sa.join('') === sb.join('') ? undefined : `${sa.join('>')}/${sb.join('>')}`;
}

/** Words that set one thing against another: on one side only, the question is about something else. */
const OPPOSING: ReadonlySet<string> = new Set(['against', 'except', 'besides', 'unlike', 'beyond']);

function opposingWord(a: TextFeatures, b: TextFeatures): string | undefined {
  for (const w of OPPOSING) if (a.wordSet.has(w) !== b.wordSet.has(w)) return w;
  return undefined;
}

const ARTICLES: ReadonlySet<string> = new Set(['a', 'an', 'the']);

const PREPOSITIONS: ReadonlySet<string> = new Set(['in', 'on', 'at', 'with', 'like', 'as', 'for', 'from', 'to', 'about', 'by', 'into', 'without', 'inside', 'within', 'through']);

/**
 * The same words but for a preposition on one side: "Is Earth a black hole?" / "Is Earth in a
 * black hole?", "an IITian girlfriend" / "an IITian as a girlfriend". (A preposition swapped for
 * another is usually a paraphrase: "books on" / "books about".)
 */
function prepositionShift(a: TextFeatures, b: TextFeatures): string | undefined {
  const x = a.words.filter((w) => !ARTICLES.has(w));
  const y = b.words.filter((w) => !ARTICLES.has(w));
  const [long, short] = x.length >= y.length ? [x, y] : [y, x];
  if (long.length === short.length + 1) {
    for (let i = 0; i < long.length; i++) {
      if (!PREPOSITIONS.has(long[i]!)) continue;
      if (long.slice(0, i).concat(long.slice(i + 1)).join(' ') === short.join(' ')) return `+${long[i]}`;
    }
  }
  return undefined;
}

/** Words that grade what they qualify: on one side only, the question asks about a degree the other does not. */
const DEGREE_WORDS: readonly string[] = ['most', 'least', 'better', 'worse'];
/** Superlatives that carry the degree in other words ("the most popular" / "the top"; "least" / "minimum"). */
const SUPERLATIVE = /^(?:best|worst|top|greatest|biggest|largest|highest|lowest|minimum|maximum|fewest|\w+iest)$/;

/**
 * A degree word on one side only: "What do women do that men hate?" vs "… that men hate the
 * most?", "built for acoustics" vs "built for better acoustics", "your prized possession" vs
 * "your most prized possession". Exempt when the other side grades with a superlative instead.
 */
function degreeShift(a: TextFeatures, b: TextFeatures): string | undefined {
  for (const w of DEGREE_WORDS) {
    if (a.wordSet.has(w) === b.wordSet.has(w)) continue;
    const [has, lacks] = a.wordSet.has(w) ? [a, b] : [b, a];
    if (lacks.words.some((v) => SUPERLATIVE.test(v) && !has.wordSet.has(v))) continue;
    return w;
  }
  return undefined;
}

/** Prepositions that tie a question to a thing; "like" instead likens to it. */
const TYING_PREPOSITIONS: ReadonlySet<string> = new Set(['with', 'in', 'at', 'on', 'from', 'by']);
/** Words after which "like" is the verb ("I would like", "do you like"), not the preposition. */
const LIKE_VERB_CUES: ReadonlySet<string> = new Set([
  'would', 'to', 'i', 'you', 'we', 'they', 'he', 'she', 'it', 'do', 'does', 'did', "don't", "doesn't", "didn't", "i'd", "you'd", "we'd", 'really', 'not', 'who', 'people',
]);

/**
 * "like X" on one side, another preposition before the same X on the other: "do business with
 * Alibaba" vs "have a business like Alibaba" (dealing with it vs resembling it).
 */
function likenedInstead(a: TextFeatures, b: TextFeatures): string | undefined {
  const skipArticle = (words: string[], i: number, step: 1 | -1): string | undefined => {
    const w = words[i];
    return w !== undefined && ARTICLES.has(w) ? words[i + step] : w;
  };
  for (const [x, y] of [[a, b], [b, a]] as const) {
    for (let i = 1; i < x.words.length - 1; i++) {
      if (x.words[i] !== 'like' || LIKE_VERB_CUES.has(x.words[i - 1]!)) continue;
      const object = skipArticle(x.words, i + 1, 1);
      const j = object === undefined ? -1 : y.words.indexOf(object);
      if (j <= 0) continue;
      const before = skipArticle(y.words, j - 1, -1);
      if (before !== undefined && TYING_PREPOSITIONS.has(before)) return `like/${before}`;
    }
  }
  return undefined;
}

export interface Guard {
  name: string;
  /** A reason to refuse, or undefined when the guard lets the pair through. */
  check(a: TextFeatures, b: TextFeatures): string | undefined;
}

/** The guards, cheapest and most decisive first. */
export const GUARDS: readonly Guard[] = [
  { name: 'deictic', check: (a, b) => a.deictic ?? b.deictic },
  { name: 'numbers', check: (a, b) => (sameMultiset(numbersOf(a), numbersOf(b)) ? numberRelation(a, b) : `${numbersOf(a).join(',')}/${numbersOf(b).join(',')}`) },
  { name: 'identifiers', check: (a, b) => (sameMultiset(a.identifiers, b.identifiers) ? undefined : `${a.identifiers.join(',')}/${b.identifiers.join(',')}`) },
  { name: 'negation', check: (a, b) => (a.negated === b.negated ? undefined : a.negated ? 'first' : 'second') },
  { name: 'antonym', check: antonymSwap },
  { name: 'question-word', check: (a, b) => questionWordMismatch(a, b) ?? leadWord(a, b) },
  { name: 'question-form', check: (a, b) => modalMismatch(a, b) ?? tenseShift(a, b) ?? yesNoVsWh(a, b) ?? questionCount(a, b) },
  { name: 'swapped-roles', check: (a, b) => swappedRoles(a, b) ?? peopleOrder(a, b) ?? opposingWord(a, b) ?? prepositionShift(a, b) ?? likenedInstead(a, b) },
  { name: 'entity', check: entityMismatch },
  { name: 'person', check: personShift },
  { name: 'degree', check: degreeShift },
  { name: 'content', check: (a, b) => addedQualifier(a, b) ?? substitution(a, b) },
];

/** Guard verdict on two analysed texts. */
export function admissibleFeatures(a: TextFeatures, b: TextFeatures): Verdict {
  for (const g of GUARDS) {
    const why = g.check(a, b);
    if (why !== undefined) return { ok: false, reason: why ? `${g.name}:${why}` : g.name };
  }
  return { ok: true };
}

/** May a cached answer to `b` be served for question `a` (or vice versa)? Symmetric. */
export function admissible(a: string, b: string): Verdict {
  return admissibleFeatures(analyze(a), analyze(b));
}
