// Signup and the email confirmation of a new account's dev allowance (billing/signup-allowance.ts).
// Both are doors without a key: throttled per client address and read only small bodies
// (http/door-guard.ts).
import type { FastifyInstance } from 'fastify';
import { signupRequest } from '@optimizer/schema';
import { z } from 'zod';
import { parseWith } from '../input/validate.ts';
import type { Services } from '../services.ts';

/** The token of the confirmation email (the link's `token`, or a POST's body). */
export const signupConfirmRequest = z.object({ token: z.string().min(16, 'token is required').max(200).regex(/^[A-Za-z0-9_-]+$/, 'token must be the one from the email') }).strict();

export function registerSignupRoutes(app: FastifyInstance, s: Services): void {
  app.post('/v1/signup', async (request, reply) => {
    const body = parseWith(signupRequest, request.body);
    const created = await s.accounts.signup(body);
    return reply.status(201).header('cache-control', 'no-store').send(created);
  });

  // the link in the email (GET) and the same from a client (POST)
  app.get('/v1/signup/confirm', async (request, reply) => {
    const { token } = parseWith(signupConfirmRequest, request.query);
    return reply.header('cache-control', 'no-store').send(await s.signup.confirm(token));
  });
  app.post('/v1/signup/confirm', async (request, reply) => {
    const { token } = parseWith(signupConfirmRequest, request.body);
    return reply.header('cache-control', 'no-store').send(await s.signup.confirm(token));
  });
}
