// BERT (uncased) WordPiece tokenizer, read from a Hugging Face `tokenizer.json`.
// Same steps as the `tokenizers` BertNormalizer + BertPreTokenizer + WordPiece that
// all-MiniLM-L6-v2 ships with: clean control characters, pad CJK ideographs, strip
// accents, lowercase, split on whitespace and punctuation, then greedy longest-match
// WordPiece with the `##` continuation prefix, wrapped in [CLS] … [SEP].
import { readFileSync } from 'node:fs';

export interface Encoding {
  /** Token ids, [CLS] first and [SEP] last. */
  ids: number[];
}

interface TokenizerJson {
  model?: { type?: string; vocab?: Record<string, number>; unk_token?: string; continuing_subword_prefix?: string; max_input_chars_per_word?: number };
  normalizer?: { lowercase?: boolean; strip_accents?: boolean | null } | null;
}

/** sentence-transformers' `max_seq_length` for all-MiniLM-L6-v2 (the model itself takes 512). */
export const DEFAULT_MAX_TOKENS = 256;

export class WordPieceTokenizer {
  readonly vocab: Map<string, number>;
  readonly clsId: number;
  readonly sepId: number;
  readonly padId: number;
  readonly unkId: number;
  readonly maxTokens: number;
  private readonly prefix: string;
  private readonly maxCharsPerWord: number;
  private readonly lowercase: boolean;
  private readonly stripAccents: boolean;

  constructor(json: TokenizerJson, maxTokens = DEFAULT_MAX_TOKENS) {
    const model = json.model;
    if (!model || model.type !== 'WordPiece' || !model.vocab) throw new Error('tokenizer.json: not a WordPiece model');
    this.vocab = new Map(Object.entries(model.vocab));
    const id = (t: string): number => {
      const v = this.vocab.get(t);
      if (v === undefined) throw new Error(`tokenizer.json: vocabulary has no ${t}`);
      return v;
    };
    this.unkId = id(model.unk_token ?? '[UNK]');
    this.clsId = id('[CLS]');
    this.sepId = id('[SEP]');
    this.padId = id('[PAD]');
    this.prefix = model.continuing_subword_prefix ?? '##';
    this.maxCharsPerWord = model.max_input_chars_per_word ?? 100;
    this.lowercase = json.normalizer?.lowercase ?? true;
    // BertNormalizer: strip_accents null means "follow lowercase".
    this.stripAccents = json.normalizer?.strip_accents ?? this.lowercase;
    if (maxTokens < 3) throw new Error('maxTokens must leave room for [CLS] and [SEP]');
    this.maxTokens = maxTokens;
  }

  static fromFile(path: string, maxTokens = DEFAULT_MAX_TOKENS): WordPieceTokenizer {
    return new WordPieceTokenizer(JSON.parse(readFileSync(path, 'utf8')) as TokenizerJson, maxTokens);
  }

  /** Normalised, pre-tokenized words (before WordPiece). */
  basicTokens(text: string): string[] {
    let s = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (cp === 0 || cp === 0xfffd || isControl(ch)) continue;
      if (isWhitespace(ch)) s += ' ';
      else if (isCjk(cp)) s += ` ${ch} `;
      else s += ch;
    }
    if (this.stripAccents) s = s.normalize('NFD').replace(/\p{Mn}/gu, '');
    if (this.lowercase) s = s.toLowerCase();
    const out: string[] = [];
    for (const word of s.split(' ')) {
      if (!word) continue;
      let cur = '';
      for (const ch of word) {
        if (isPunctuation(ch)) {
          if (cur) out.push(cur);
          out.push(ch);
          cur = '';
        } else cur += ch;
      }
      if (cur) out.push(cur);
    }
    return out;
  }

  /** WordPiece ids of one pre-tokenized word: greedy longest match, [UNK] if any piece fails. */
  wordPiece(word: string): number[] {
    const chars = Array.from(word);
    if (chars.length > this.maxCharsPerWord) return [this.unkId];
    const ids: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? this.prefix : '') + chars.slice(start, end).join('');
        found = this.vocab.get(piece);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) return [this.unkId];
      ids.push(found);
      start = end;
    }
    return ids;
  }

  /** [CLS] pieces… [SEP], truncated to maxTokens in all. */
  encode(text: string): Encoding {
    const room = this.maxTokens - 2;
    const ids = [this.clsId];
    outer: for (const w of this.basicTokens(text)) {
      for (const id of this.wordPiece(w)) {
        if (ids.length - 1 >= room) break outer;
        ids.push(id);
      }
    }
    ids.push(this.sepId);
    return { ids };
  }
}

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || /^\p{Zs}$/u.test(ch);
}

function isControl(ch: string): boolean {
  if (ch === '\t' || ch === '\n' || ch === '\r') return false;
  return /^[\p{Cc}\p{Cf}]$/u.test(ch);
}

function isPunctuation(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) return true;
  return /^\p{P}$/u.test(ch);
}

function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}
