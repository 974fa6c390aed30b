// Billing routes that are no capability (the tenant's billing is, capabilities/billing.ts):
// Stripe's webhook, authenticated by its signature over the raw body, and the platform admin's
// support credit.
import type { FastifyInstance } from 'fastify';
import { adminCreditRequest } from '@optimizer/schema';
import { adminAuth } from '../http/auth.ts';
import { parseWith } from '../input/validate.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';

export function registerBillingRoutes(app: FastifyInstance, s: Services): void {
  // Stripe calls this; the signature is the authentication (no bearer key).
  app.post('/v1/billing/webhook', async (request) => {
    const header = request.headers['stripe-signature'];
    const result = await s.payments.webhook(request.rawBody, typeof header === 'string' ? header : undefined);
    return { received: true, credited: result.credited };
  });

  app.post<{ Params: { account: string } }>('/v1/admin/accounts/:account/credit', { onRequest: adminAuth(s.adminAuth) }, async (request, reply) => {
    const body = parseWith(adminCreditRequest, request.body);
    const [found] = (await s.db.em().getConnection().execute('select 1 from accounts where id = ?', [request.params.account])) as unknown[];
    if (!found) throw new ApiError('not_found', `No account ${request.params.account}.`);
    await s.billing.credit(request.params.account, Math.round(body.amount_usd * 1e6), body.reason);
    await s.subscriptions.walletCredited(request.params.account); // a past-due month paid from the wallet is paid now
    return reply.status(204).send();
  });
}
