// GraphiQL's page options: opened with a dashboard session, it uses it (the browser sends the
// cookie; a query of the tenant's fields is ready to run); opened cold, its first tab says how
// to authenticate (sign in to the dashboard, or a bearer key in the Headers tab, opened).
import type { FastifyRequest } from 'fastify';
import type { GraphiQLOptions } from 'graphql-yoga';
import { sessionIdOf } from '../http/session-cookie.ts';
import type { Services } from '../services.ts';

const SIGNED_IN = `# Signed in through the dashboard's session: this page uses it (no header needed).
# Press the run button (or Ctrl-Enter) for your savings and newest calls; the Docs
# button lists every field. A bearer key in the Headers tab overrides the session.
query Start {
  savings { calls baselineCost actualCost saving }
  calls(limit: 5) { id step model routedModel cost { actual } reasons }
}
`;

const COLD = `# This GraphQL door needs a credential. Either:
#   1. sign in to the dashboard at /optimizer/ (email and API key) and reload this page:
#      it then uses the dashboard's session; or
#   2. add a header in the Headers tab below:
#        { "authorization": "Bearer sk-opt-…" }   your tenant key (the tenant's fields)
#        { "authorization": "Bearer <admin key>" } the platform's fields (ADMIN_KEY)
# Until then the schema cannot load and every query answers 401.
query Start {
  savings { calls saving }
}
`;

/** Whether the request carries a dashboard session that still holds. */
async function hasSession(s: Services, req: FastifyRequest | undefined): Promise<boolean> {
  if (!req || req.headers.authorization !== undefined) return false;
  const id = sessionIdOf(req);
  return id !== null && (await s.sessions.resolve(id).catch(() => null)) !== null;
}

export function graphiqlPage(s: Services) {
  return async (_request: Request, ctx?: { req?: FastifyRequest }): Promise<GraphiQLOptions> => {
    const signedIn = await hasSession(s, ctx?.req);
    return {
      title: 'Optimizer GraphQL',
      credentials: 'same-origin',
      defaultQuery: signedIn ? SIGNED_IN : COLD,
      ...(signedIn ? {} : { defaultEditorToolsVisibility: 'headers' as const }),
    };
  };
}
