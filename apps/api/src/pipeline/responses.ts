// POST /v1/responses: OpenAI's Responses API on the completion pipeline. The request is
// read into a chat-completions body at the edge (wire/responses-request.ts), the same
// handler as /v1/chat/completions runs it (routing, caches, guard, metering, idempotency,
// budget), and the answer is rewritten into the Responses shape as it leaves
// (responses-sink.ts). Either server (Fastify or the socket path) runs this handler.
import type { PipelineHandler } from './sink.ts';
import { readResponsesRequest } from '../wire/responses-request.ts';
import { ResponsesSink } from './responses-sink.ts';

export function responsesHandler(completion: PipelineHandler): PipelineHandler {
  return async (request, reply) => {
    const { chat, echo } = readResponsesRequest(request.body);
    // the body's text is the Responses request's, not the chat body's: it is not forwarded
    await completion({ headers: request.headers, body: chat, principal: request.principal }, new ResponsesSink(reply, echo));
  };
}
