// What the mock knows of Claude model families: the output limit it enforces on
// max_tokens and whether temperature and top_p may be set together.

interface Family {
  pattern: RegExp;
  maxOutputTokens: number;
  oneSampler: boolean;
}

const FAMILIES: Family[] = [
  { pattern: /^claude-opus-([5-9]|4-[6-9])/, maxOutputTokens: 128_000, oneSampler: true },
  { pattern: /^claude-(sonnet|haiku)-[5-9]/, maxOutputTokens: 64_000, oneSampler: true },
  { pattern: /^claude-(opus|sonnet|haiku)-4-5/, maxOutputTokens: 64_000, oneSampler: true },
  { pattern: /^claude-opus-4-1/, maxOutputTokens: 32_000, oneSampler: true },
  { pattern: /^claude-opus-4/, maxOutputTokens: 32_000, oneSampler: false },
  { pattern: /^claude-(sonnet-4|3-7-sonnet)/, maxOutputTokens: 64_000, oneSampler: false },
  { pattern: /^claude-3-5-/, maxOutputTokens: 8_192, oneSampler: false },
  { pattern: /^claude-3-/, maxOutputTokens: 4_096, oneSampler: false },
];

/** Known families only; any other model name (the magic fault models included) has no limits. */
export function familyOf(model: string): Family | undefined {
  return FAMILIES.find((f) => f.pattern.test(model));
}

export const MODEL_IDS = ['claude-opus-5-5', 'claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001', 'claude-opus-4-1-20250805'];
