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

/** `GET /v1/calls`: typed numbers; the REST door turns query strings into numbers first (numbersFromQuery). */
export const callsQuery = z
  .object({
    agent: z.string().min(1).optional(),
    limit: z.number().int().min(1).max(500).default(50),
    /** A call id from the previous page (its last): the page of calls older than it. */
    starting_after: z.string().min(1).max(100).optional(),
  })
  .strict();

/** `GET /v1/calls/:id`: one call by its id (the `x-optimizer-call-id` header). */
export const callRef = z.object({ id: z.string().min(1).max(100) }).strict();
