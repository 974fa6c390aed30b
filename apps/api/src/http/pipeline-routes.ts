// The data plane's routes on Fastify: the completion and embeddings pipelines behind the
// tenant's bearer key, and the Responses API on the completion pipeline. Fastify's reply is
// handed to them as it is (it is a ResponseSink); the socket path (fast-path.ts) runs the
// same completion and Responses handlers on its own reply.
import type { FastifyInstance } from 'fastify';
import { completionHandler } from '../pipeline/completions.ts';
import { embeddingsHandler } from '../pipeline/embeddings.ts';
import { responsesHandler } from '../pipeline/responses.ts';
import type { PipelineHandler } from '../pipeline/sink.ts';
import type { Services } from '../services.ts';
import { tenantAuth } from './auth.ts';

/** The handlers the socket path serves, by route. */
export interface HotHandlers {
  completion: PipelineHandler;
  responses: PipelineHandler;
}

/** Registers the routes; returns the handlers the socket path serves. */
export function registerPipelineRoutes(app: FastifyInstance, s: Services): HotHandlers {
  const authenticate = tenantAuth(s.keys);
  const completion = completionHandler(s);
  const responses = responsesHandler(completion);
  const embeddings = embeddingsHandler(s);
  app.post('/v1/chat/completions', { onRequest: authenticate }, (request, reply) => completion(request, reply));
  app.post('/v1/responses', { onRequest: authenticate }, (request, reply) => responses(request, reply));
  app.post('/v1/embeddings', { onRequest: authenticate }, (request, reply) => embeddings(request, reply));
  return { completion, responses };
}
