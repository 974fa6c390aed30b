// The data plane's routes on Fastify: the completion and embeddings pipelines behind the
// tenant's bearer key. Fastify's reply is handed to them as it is (it is a ResponseSink);
// the socket path (fast-path.ts) runs the same completion handler on its own reply.
import type { FastifyInstance } from 'fastify';
import { completionHandler } from '../pipeline/completions.ts';
import { embeddingsHandler } from '../pipeline/embeddings.ts';
import type { PipelineHandler } from '../pipeline/sink.ts';
import type { Services } from '../services.ts';
import { tenantAuth } from './auth.ts';

/** Registers both routes; returns the completion handler for the socket path. */
export function registerPipelineRoutes(app: FastifyInstance, s: Services): PipelineHandler {
  const authenticate = tenantAuth(s.keys);
  const completion = completionHandler(s);
  const embeddings = embeddingsHandler(s);
  app.post('/v1/chat/completions', { onRequest: authenticate }, (request, reply) => completion(request, reply));
  app.post('/v1/embeddings', { onRequest: authenticate }, (request, reply) => embeddings(request, reply));
  return completion;
}
