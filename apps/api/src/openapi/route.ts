// GET /v1/openapi.json: the REST door's OpenAPI 3.1 document (openapi/document.ts) of the
// gateway's capabilities, built on the first request from the same code as docs/openapi.json
// and kept. Anyone may read it.
import type { FastifyInstance } from 'fastify';
import type { CapabilityTree } from '../capabilities/capability.ts';
import { capabilities } from '../capabilities/index.ts';
import { OPENAPI_PATH, openApiDocument } from './document.ts';

export function registerOpenApiRoute(app: FastifyInstance, set: CapabilityTree = capabilities): void {
  let body: string | null = null;
  app.get(OPENAPI_PATH, async (_request, reply) => {
    body ??= JSON.stringify(openApiDocument(set));
    return reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(body);
  });
}
