// Billing routes (spec 4.4): the billing view, statements, top-up, a workflow's managed
// subscription, the estimate, Stripe's webhook and the admin's support credit. The tenant's
// routes are thin: input through the shared schema, then the domain (domain/billing.ts).
import type { FastifyInstance } from 'fastify';
import { adminCreditRequest, autoTopupRequest, estimateRequest, statementsQuery, topupRequest, workflowRef } from '@optimizer/schema';
import { billingView, cancelSubscription, createTopup, estimateSavings, listStatements, savingsLedger, setAutoTopup, startSubscription, subscription } from '../domain/billing.ts';
import { adminAuth, controlAuth, principalOf } from '../http/auth.ts';
import { restInput } from '../http/rest-input.ts';
import { parseWith } from '../http/validate.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';

export function registerBillingRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = controlAuth(s);

  // No auth (spec 5): a projection for a prospect, from measured benchmark results.
  app.post('/v1/estimate', async (request) => estimateSavings(s, parseWith(estimateRequest, request.body)));

  app.get('/v1/billing', { onRequest }, async (request, reply) => {
    return reply.header('cache-control', 'no-store').send(await billingView(s, principalOf(request)));
  });

  app.get('/v1/billing/statements', { onRequest }, async (request) => ({ data: await listStatements(s, principalOf(request), parseWith(statementsQuery, request.query)) }));

  app.get('/v1/billing/savings-ledger', { onRequest }, async (request) => savingsLedger(s, principalOf(request), parseWith(statementsQuery, request.query)));

  app.post('/v1/billing/topup', { onRequest }, async (request, reply) => {
    const checkout = await createTopup(s, principalOf(request), parseWith(topupRequest, request.body));
    return reply.status(201).header('cache-control', 'no-store').send(checkout);
  });

  app.put('/v1/billing/auto-topup', { onRequest }, async (request) => setAutoTopup(s, principalOf(request), parseWith(autoTopupRequest, request.body)));

  // Stripe calls this; the signature is the authentication (no bearer key).
  app.post('/v1/billing/webhook', async (request) => {
    const header = request.headers['stripe-signature'];
    const result = await s.payments.webhook(request.rawBody, typeof header === 'string' ? header : undefined);
    return { received: true, credited: result.credited };
  });

  app.get('/v1/workflows/:id/subscription', { onRequest }, async (request) => subscription(s, principalOf(request), restInput(workflowRef, request, 'params')));

  app.post('/v1/workflows/:id/subscription', { onRequest }, async (request, reply) => {
    return reply.status(201).send(await startSubscription(s, principalOf(request), restInput(workflowRef, request, 'params')));
  });

  app.delete('/v1/workflows/:id/subscription', { onRequest }, async (request) => cancelSubscription(s, principalOf(request), restInput(workflowRef, request, 'params')));

  app.post<{ Params: { account: string } }>('/v1/admin/accounts/:account/credit', { onRequest: adminAuth(s.adminAuth) }, async (request, reply) => {
    const body = parseWith(adminCreditRequest, request.body);
    const [found] = (await s.db.em().getConnection().execute('select 1 from accounts where id = ?', [request.params.account])) as unknown[];
    if (!found) throw new ApiError('not_found', `No account ${request.params.account}.`);
    await s.billing.credit(request.params.account, Math.round(body.amount_usd * 1e6), body.reason);
    return reply.status(204).send();
  });
}
