// What the semantic cache service is asked and answers, and the shapes of its rows and notices.
import type { CachedAnswer } from '../answer-cache.ts';

/** What one semantic lookup is about: the question, and everything it must share with a cached one. */
export interface SemanticQuery {
  accountId: string;
  /** The step's fingerprint. */
  step: string;
  /** Hash of everything but the question that shapes the answer (earlier messages, tools, params, model). */
  scope: string;
  question: string;
  /** A raised bar for this call (request or tenant setting); never below the embedder's default. */
  threshold: number | undefined;
}

export interface SemanticHit {
  id: string;
  similarity: number;
  question: string;
  answer: CachedAnswer;
}

export interface Lookup {
  hit: SemanticHit | null;
  /** Why there was no hit when it was not for want of a similar question ("embedder loading", …). */
  why: string | null;
  /** The question's vector, for storing the answer; null when it could not be had. */
  vector: Promise<Float32Array | null>;
}

export interface StepCheck {
  checked: number;
  failed: number;
  disabled: boolean;
  reason: string | null;
}

/** A step's checks, with whose step it is (a queued write, a notice to other replicas). */
export type StepRecord = { accountId: string; step: string } & StepCheck;

/** An entry as another replica announces it. */
export interface EntryNotice {
  origin: string;
  accountId: string;
  step: string;
  scope: string;
  id: string;
  question: string;
  embedder: string;
  vector: string;
  answer: CachedAnswer;
  expiresAt: number;
}

/** An entry as it is written to semantic_cache_entries (the vector in base64). */
export interface EntryRow {
  id: string;
  account_id: string;
  step: string;
  scope: string;
  question: string;
  embedder: string;
  vector: string;
  answer: CachedAnswer;
  created_at: string;
  expires_at: string;
}
