// The platform admin API (spec 4.7): the catalog and the providers. Admin bearer only.
// The writes live in catalog/catalog-admin.ts and providers/provider-admin.ts, shared
// with the GraphQL door.
import type { FastifyInstance } from 'fastify';
import { clearUnknownModelPrice, putAlias, putModel, putUnknownModelPrice, removeAlias, removeModel, setModelDisabled, unknownModelPriceView } from '../admin/catalog.ts';
import { adminAuth } from '../http/auth.ts';
import { putProvider, removeProvider, testProvider } from '../admin/providers.ts';
import type { Services } from '../services.ts';

export function registerAdminCatalogRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = adminAuth(s.adminAuth);

  app.get('/v1/admin/catalog', { onRequest }, async () => ({ data: s.catalog.all() }));

  app.put<{ Params: { model: string } }>('/v1/admin/catalog/:model', { onRequest }, async (request) =>
    putModel(s, decodeURIComponent(request.params.model), request.body),
  );

  app.delete<{ Params: { model: string } }>('/v1/admin/catalog/:model', { onRequest }, async (request, reply) => {
    await removeModel(s, decodeURIComponent(request.params.model));
    return reply.status(204).send();
  });

  app.post<{ Params: { model: string } }>('/v1/admin/catalog/:model/disabled', { onRequest }, async (request) =>
    setModelDisabled(s, decodeURIComponent(request.params.model), request.body),
  );

  // pricing for names the catalog does not list: aliases (dated snapshots) and the unknown-model price
  app.get('/v1/admin/catalog-aliases', { onRequest }, async () => ({ data: s.catalog.aliases() }));

  app.put<{ Params: { alias: string } }>('/v1/admin/catalog-aliases/:alias', { onRequest }, async (request) => putAlias(s, request.params.alias, request.body));

  app.delete<{ Params: { alias: string } }>('/v1/admin/catalog-aliases/:alias', { onRequest }, async (request, reply) => {
    await removeAlias(s, request.params.alias);
    return reply.status(204).send();
  });

  app.get('/v1/admin/unknown-model-price', { onRequest }, async () => unknownModelPriceView(s));

  app.put('/v1/admin/unknown-model-price', { onRequest }, async (request) => putUnknownModelPrice(s, request.body));

  app.delete('/v1/admin/unknown-model-price', { onRequest }, async () => clearUnknownModelPrice(s));

  app.get('/v1/admin/providers', { onRequest }, async () => ({ data: s.customProviders.list() }));

  app.put<{ Params: { name: string } }>('/v1/admin/providers/:name', { onRequest }, async (request) => putProvider(s, request.params.name, request.body));

  app.delete<{ Params: { name: string } }>('/v1/admin/providers/:name', { onRequest }, async (request, reply) => {
    await removeProvider(s, request.params.name);
    return reply.status(204).send();
  });

  app.post<{ Params: { name: string } }>('/v1/admin/providers/:name/test', { onRequest }, async (request) => testProvider(s, request.params.name));
}
