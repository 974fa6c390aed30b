// Dashboard sign-in and sign-out (design §7). Login checks that the key belongs to the
// account with that email, ends any session the browser already had (the id rotates on
// every login) and sets a fresh cookie; logout ends the session and clears the cookie.
import type { FastifyInstance } from 'fastify';
import { loginRequest } from '@optimizer/schema';
import { parseWith } from '../input/validate.ts';
import { checkCsrf, clearSessionCookie, sessionIdOf, setSessionCookie } from '../http/session-cookie.ts';
import type { Services } from '../services.ts';

export function registerSessionRoutes(app: FastifyInstance, s: Services): void {
  app.post('/v1/login', async (request, reply) => {
    const body = parseWith(loginRequest, request.body);
    const principal = await s.sessions.verify(body.email, body.api_key);
    const previous = sessionIdOf(request);
    if (previous !== null) await s.sessions.destroy(previous);
    const id = await s.sessions.create(principal);
    setSessionCookie(request, reply, id, s.sessions.ttlMs);
    return reply.header('cache-control', 'no-store').send({ account_id: principal.accountId, workflow_id: principal.workflowId });
  });

  app.post('/v1/logout', async (request, reply) => {
    const id = sessionIdOf(request);
    if (id !== null) {
      checkCsrf(request);
      await s.sessions.destroy(id);
    }
    clearSessionCookie(request, reply);
    return reply.status(204).send();
  });
}
