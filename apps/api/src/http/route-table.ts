// Every route a Fastify instance registers, as method and path, recorded by an onRoute hook
// added before the first route. The OpenAPI test compares it with the document's paths, so a
// route added without documenting it fails there.
import type { FastifyInstance } from 'fastify';

export interface RegisteredRoute {
  method: string;
  url: string;
}

const tables = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Starts recording; call before any route is registered (plugins registered later inherit the hook). */
export function recordRoutes(app: FastifyInstance): void {
  const table: RegisteredRoute[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) table.push({ method, url: route.url });
  });
}

/** What `app` registered since recordRoutes, in order (HEAD routes Fastify adds beside GETs included). */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  const table = tables.get(app);
  if (!table) throw new Error('recordRoutes was not called on this instance');
  return table;
}
