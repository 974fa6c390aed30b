// POST /v1/responses: OpenAI's Responses API on the completion pipeline. The request is read
// into a chat-completions body at the edge (wire/responses-request.ts), the same handler as
// /v1/chat/completions runs it (routing, caches, guard, metering, idempotency, budget), and its
// Reply is rewritten into the Responses shape (`asResponses`). Every transport runs this handler.
import type { PipelineHandler, Reply } from './reply.ts';
import { mapStream } from './reply.ts';
import { readResponsesRequest, type ResponsesEcho } from '../wire/responses-request.ts';
import { ResponseIds, responseFromCompletion } from '../wire/responses-answer.ts';
import { ResponsesStream } from '../wire/responses-stream.ts';

/**
 * A completion's Reply as the Responses API's: a whole 200 JSON answer becomes the Responses
 * object; a 200 event stream (relayed live, or sent whole from a cache or an idempotent replay)
 * becomes the Responses typed events. Errors are thrown, the catalogue's envelope either way.
 */
export function asResponses(reply: Reply, echo: ResponsesEcho): Reply {
  if (reply.status !== 200) return reply;
  const type = reply.headers['content-type'] ?? '';
  const ids = () => new ResponseIds(reply.headers['x-optimizer-call-id']);
  if (/event-stream/.test(type)) {
    const stream = new ResponsesStream(ids(), echo);
    return { ...reply, body: typeof reply.body === 'string' ? stream.push(reply.body) : mapStream(reply.body, (piece) => stream.push(piece)) };
  }
  if (/json/.test(type) && typeof reply.body === 'string') return { ...reply, body: responseFromCompletion(reply.body, ids(), echo) };
  return reply;
}

export function responsesHandler(completion: PipelineHandler): PipelineHandler {
  return async (request) => {
    const { chat, echo } = readResponsesRequest(request.body);
    // the body's text is the Responses request's, not the chat body's: it is not forwarded
    const { rawBody: _text, ...rest } = request;
    return asResponses(await completion({ ...rest, body: chat }), echo);
  };
}
