import type { FastifyInstance } from 'fastify';
import { adminAuth } from '../http/auth.ts';
import type { Services } from '../services.ts';

export function registerAdminCatalogRoutes(app: FastifyInstance, s: Services): void {
  const onRequest = adminAuth(s.adminAuth);
  app.get('/v1/admin/catalog', { onRequest }, async () => ({ data: s.catalog.all() }));
}
