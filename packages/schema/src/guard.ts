// The guard settings topic (spec 4.5): PII redaction and the prompt-injection policy.
import { z } from 'zod';

/** What the redactor detects; each kind has its own placeholder (`[EMAIL_1]`, `[CARD_1]`, …). */
export const piiKinds = ['email', 'phone', 'card', 'iban', 'national_id', 'secret'] as const;
export const piiKind = z.enum(piiKinds);
export type PiiKind = z.infer<typeof piiKind>;

/** allow: not looked for; flag: recorded on the call; block: refused before any vendor call. */
export const injectionPolicy = z.enum(['allow', 'flag', 'block']);
export type InjectionPolicy = z.infer<typeof injectionPolicy>;

export const guardSettings = z
  .object({
    /** Off by default: redaction changes what the vendor sees, so a tenant opts in. */
    redact_pii: z.boolean().default(false),
    /** Which kinds are redacted when `redact_pii` is on (default: all). */
    pii_kinds: z.array(piiKind).max(piiKinds.length).default([...piiKinds]),
    injection: injectionPolicy.default('allow'),
  })
  .strict();
export type GuardSettings = z.infer<typeof guardSettings>;
