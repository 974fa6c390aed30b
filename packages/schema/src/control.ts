// Control-plane request bodies shared by the server, the SDK and the web app.
import { z } from 'zod';

export const signupRequest = z
  .object({
    company: z.string().trim().min(1, 'company is required').max(200),
    email: z.email('email must be an email address').max(320),
  })
  .strict();
export type SignupRequest = z.infer<typeof signupRequest>;

/** Dashboard sign-in: the account's email and one of its tenant keys. */
export const loginRequest = z
  .object({
    email: z.string().trim().min(1, 'email is required').max(320),
    api_key: z.string().min(1, 'api_key is required').max(200),
  })
  .strict();
export type LoginRequest = z.infer<typeof loginRequest>;

export const createAgentRequest = z.object({ name: z.string().trim().min(1, 'name is required').max(200) }).strict();
export type CreateAgentRequest = z.infer<typeof createAgentRequest>;

export const providerName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{1,39}$/, 'provider must be a lowercase id (letters, digits, dashes; 2–40 characters)');

export const putProviderKeyRequest = z.object({ key: z.string().trim().min(8, 'key is too short').max(4096) }).strict();
export type PutProviderKeyRequest = z.infer<typeof putProviderKeyRequest>;

/** A date (2025-01-31) or a date-time with its zone (2025-01-31T12:00:00Z), one string on every door. */
const isoInstant = (name: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/, `${name} must be a date (2025-01-31) or a date-time with its zone (2025-01-31T12:00:00Z)`)
    .refine((v) => !Number.isNaN(Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v)), `${name} is not a real date`);

/** `GET /v1/calls`: typed numbers; the REST door turns query strings into numbers first (numbersFromQuery). */
export const callsQuery = z
  .object({
    agent: z.string().min(1).optional(),
    limit: z.number().int().min(1).max(500).default(50),
    /** A call id from the previous page (its last): the page of calls older than it. */
    starting_after: z.string().min(1).max(100).optional(),
    /** One step's calls: its label or its fingerprint. */
    step: z.string().min(1).max(200).optional(),
    /** Calls that asked for or were served by this model. */
    model: z.string().min(1).max(200).optional(),
    /** Calls of one run (the annotation's `run.id`). */
    run: z.string().min(1).max(200).optional(),
    /** `hit`: answered from a cache; `miss`: sent to a vendor. */
    cache: z.enum(['hit', 'miss'], 'cache must be hit or miss').optional(),
    /** `ok`: answered (status below 400); `error`: failed. */
    outcome: z.enum(['ok', 'error'], 'outcome must be ok or error').optional(),
    /** Calls made at or after this time (ISO 8601, e.g. 2025-01-31 or 2025-01-31T12:00:00Z). */
    from: isoInstant('from').optional(),
    /** Calls made before this time (ISO 8601; a date alone means its start). */
    to: isoInstant('to').optional(),
  })
  .strict();

/** The filters of `GET /v1/calls` without its paging: the calls a CSV export or a count covers. */
export type CallFilters = Omit<z.output<typeof callsQuery>, 'limit' | 'starting_after'>;

/** `GET /v1/calls/:id`: one call by its id (the `x-optimizer-call-id` header). */
export const callRef = z.object({ id: z.string().min(1).max(100) }).strict();
