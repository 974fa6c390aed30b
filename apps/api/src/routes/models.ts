// GET /v1/models: the catalog's routable models in OpenAI's list shape, plus the two
// routed names, so clients that list models before calling see what they can name.
import type { FastifyInstance } from 'fastify';
import { controlAuth } from '../http/auth.ts';
import { hasAdapter } from '../providers/adapters.ts';
import type { Services } from '../services.ts';

const CREATED = Math.floor(Date.parse('2026-01-01T00:00:00Z') / 1000);

export function registerModelRoutes(app: FastifyInstance, s: Services): void {
  app.get('/v1/models', { onRequest: controlAuth(s) }, async () => {
    const routed = ['auto', 'discover'].map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'optimizer' }));
    const models = s.catalog
      .all()
      .filter((m) => {
        const info = s.providers.get(m.provider);
        return !m.disabled && info !== undefined && hasAdapter(info.wire);
      })
      .map((m) => ({ id: m.model, object: 'model', created: CREATED, owned_by: m.provider }));
    return { object: 'list', data: [...routed, ...models] };
  });
}
