// POST /v1/chat/completions: OpenAI's body plus the `optimizer` annotation.
import { completionRequest } from '@optimizer/schema';
import { ChatCompletionStream } from '../stream.ts';
import { withResponse } from '../response.ts';
import { validate, type RequestSpec, type Transport } from '../transport.ts';
import type { ChatCompletion, ChatCompletionCreateParams, OptimizedChatCompletion, RequestOptions } from '../types.ts';

const PATH = '/v1/chat/completions';
const ENDPOINT = `POST ${PATH}`;

export class Completions {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  #spec(body: ChatCompletionCreateParams, opts: RequestOptions, accept?: string): RequestSpec {
    // Refuse a malformed annotation here, with the server's own schema, before any network call.
    validate(completionRequest, body, ENDPOINT);
    return {
      method: 'POST',
      path: PATH,
      auth: 'tenant',
      body,
      accept,
      signal: opts.signal,
      headers: { ...opts.headers, 'idempotency-key': opts.idempotencyKey, 'x-provider-key': opts.providerKey },
    };
  }

  /**
   * One completion; the answer carries the `optimizer` cost block, the gateway's `call_id`
   * (look its reasons up with client.calls.find) and, not enumerable, the response's `headers`.
   */
  async create(body: ChatCompletionCreateParams & { stream?: false | null }, opts: RequestOptions = {}): Promise<OptimizedChatCompletion> {
    const { body: answer, headers } = await this.#t.answer<ChatCompletion & { optimizer: OptimizedChatCompletion['optimizer'] }>(this.#spec(body, opts));
    return withResponse(answer, headers);
  }

  /**
   * A streamed completion (sets `stream: true`). The request is sent when iteration
   * begins; a body the schema refuses throws here, before anything is sent.
   */
  stream(body: ChatCompletionCreateParams, opts: RequestOptions = {}): ChatCompletionStream {
    const spec = this.#spec({ ...body, stream: true }, opts, 'text/event-stream');
    return new ChatCompletionStream(() => this.#t.send(spec), ENDPOINT);
  }
}

export class Chat {
  readonly completions: Completions;

  constructor(t: Transport) {
    this.completions = new Completions(t);
  }
}
