// A streamed completion: iterate it for chunks; finalOptimizer() resolves with the
// `optimizer` block the gateway puts on the last chunk before [DONE], response() with the
// call id and headers the response opened with.
import type { OptimizerBlock } from '@optimizer/schema';
import { OptimizerError, toOptimizerError } from './errors.ts';
import { parseSSE } from './sse.ts';
import { callResponse } from './response.ts';
import type { CallResponse, ChatCompletionChunk } from './types.ts';

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
  settled: boolean;
}

function deferred<T>(): Deferred<T> {
  const d = { settled: false } as Deferred<T>;
  d.promise = new Promise<T>((resolve, reject) => {
    d.resolve = (v) => {
      d.settled = true;
      resolve(v);
    };
    d.reject = (e) => {
      d.settled = true;
      reject(e);
    };
  });
  // A caller who only iterates need not ask for the block: no unhandled rejection.
  void d.promise.catch(() => undefined);
  return d;
}

export class ChatCompletionStream implements AsyncIterable<ChatCompletionChunk> {
  readonly #open: () => Promise<Response>;
  readonly #endpoint: string;
  readonly #final = deferred<OptimizerBlock>();
  #opened: Promise<Response> | null = null;
  #started = false;

  /** `open` sends the request; it is called once, when iteration begins. */
  constructor(open: () => Promise<Response>, endpoint: string) {
    this.#open = open;
    this.#endpoint = endpoint;
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatCompletionChunk> {
    if (this.#started) throw new Error('A ChatCompletionStream can be iterated only once.');
    this.#started = true;
    return this.#iterate();
  }

  /** The optimizer block from the last chunk; reads the stream to the end if nobody is iterating it. */
  async finalOptimizer(): Promise<OptimizerBlock> {
    if (!this.#started) for await (const _chunk of this);
    return this.#final.promise;
  }

  /**
   * The gateway's call id and the response's headers, once the response has opened (this
   * sends the request if iteration has not yet; the chunks wait for whoever iterates).
   */
  async response(): Promise<CallResponse> {
    return callResponse((await this.#send()).headers);
  }

  #send(): Promise<Response> {
    this.#opened ??= this.#open();
    return this.#opened;
  }

  #error(status: number, code: string, message: string, rawBody = ''): OptimizerError {
    return new OptimizerError({ status, endpoint: this.#endpoint, code, message, rawBody });
  }

  async *#iterate(): AsyncGenerator<ChatCompletionChunk> {
    let optimizer: OptimizerBlock | undefined;
    let done = false;
    try {
      const res = await this.#send();
      if (!res.body) throw this.#error(res.status, 'invalid_response', `${this.#endpoint} answered no stream body`);
      for await (const ev of parseSSE(res.body)) {
        if (ev.data.trim() === '[DONE]') {
          done = true;
          break;
        }
        let chunk: unknown;
        try {
          chunk = JSON.parse(ev.data);
        } catch (cause) {
          throw Object.assign(this.#error(res.status, 'invalid_response', `${this.#endpoint} streamed an event that is not JSON`, ev.data), { cause });
        }
        // An error after the headers went out arrives as an event in the REST error shape.
        const obj = chunk as Record<string, unknown> | null;
        if (ev.event === 'error' || (obj && typeof obj === 'object' && 'error' in obj && !('choices' in obj))) {
          throw toOptimizerError(res.status, this.#endpoint, ev.data, res.headers);
        }
        const c = chunk as ChatCompletionChunk;
        if (c.optimizer) optimizer = c.optimizer;
        yield c;
      }
      if (!done) throw this.#error(res.status, 'stream_truncated', `${this.#endpoint}: the stream ended before [DONE]`);
      if (optimizer) this.#final.resolve(optimizer);
      else this.#final.reject(this.#error(res.status, 'missing_optimizer_block', `${this.#endpoint}: no chunk carried the optimizer block`));
    } catch (e) {
      this.#final.reject(e);
      throw e;
    } finally {
      // Left early (break/return): the block never came.
      if (!this.#final.settled) this.#final.reject(this.#error(0, 'stream_abandoned', 'The stream was closed before it finished.'));
    }
  }
}
