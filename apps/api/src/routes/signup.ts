import type { FastifyInstance } from 'fastify';
import { signupRequest } from '@optimizer/schema';
import { parseWith } from '../http/validate.ts';
import type { Services } from '../services.ts';

export function registerSignupRoutes(app: FastifyInstance, s: Services): void {
  app.post('/v1/signup', async (request, reply) => {
    const body = parseWith(signupRequest, request.body);
    const created = await s.accounts.signup(body);
    return reply.status(201).header('cache-control', 'no-store').send(created);
  });
}
