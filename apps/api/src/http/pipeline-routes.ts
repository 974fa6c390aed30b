// The data plane's routes on Fastify: the completion and embeddings pipelines behind the
// tenant's bearer key, and the Responses API on the completion pipeline. Each handler returns
// a Reply that is rendered on Fastify's reply (render-reply.ts); the socket path (fast-path.ts)
// runs the same completion and Responses handlers and renders their Replies on its own reply.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { completionHandler } from '../pipeline/completions.ts';
import { embeddingsHandler } from '../pipeline/embeddings.ts';
import { responsesHandler } from '../pipeline/responses.ts';
import type { PipelineHandler } from '../pipeline/reply.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import type { KeyCache } from '../tenancy/key-cache.ts';
import { tenantAuth } from './auth.ts';
import { clientOf, renderReply } from './render-reply.ts';

/** The handlers the socket path serves, by route. */
export interface HotHandlers {
  completion: PipelineHandler;
  responses: PipelineHandler;
}

/**
 * Fastify's request and reply as a transport: the pipeline's request in, its Reply rendered.
 * Returns the reply, which Fastify awaits: a whole body's send is still in the onSend hook that
 * waits for the metering lines (app.ts) when the handler settles, and an async handler that
 * settled with nothing would then be sent a second, empty time (two writes of the head).
 */
export const onFastify = (handler: PipelineHandler) => async (request: FastifyRequest, reply: FastifyReply) => {
  const answer = await handler({ headers: request.headers, body: request.body, rawBody: request.rawBody, principal: request.principal, ...clientOf(reply) });
  await renderReply(answer, reply);
  return reply;
};

/** Registers the routes; returns the handlers the socket path serves. */
export function registerPipelineRoutes(app: FastifyInstance, s: PipelineDeps & { keys: KeyCache }): HotHandlers {
  const authenticate = tenantAuth(s.keys);
  const completion = completionHandler(s);
  const responses = responsesHandler(completion);
  app.post('/v1/chat/completions', { onRequest: authenticate }, onFastify(completion));
  app.post('/v1/responses', { onRequest: authenticate }, onFastify(responses));
  app.post('/v1/embeddings', { onRequest: authenticate }, onFastify(embeddingsHandler(s)));
  return { completion, responses };
}
