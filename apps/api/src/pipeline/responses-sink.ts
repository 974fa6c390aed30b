// The response sink a Responses API call runs the completion pipeline on: every stage
// answers as it does for chat completions, and this sink rewrites what leaves. A whole
// 200 JSON answer becomes the Responses object; a 200 event stream (relayed live, or sent
// whole from a cache or an idempotent replay) becomes the Responses typed events. Errors
// (any other status) pass as they are: they are the catalogue's envelope either way.
import type { ResponseSink, SinkStream } from './sink.ts';
import { ResponseIds, responseFromCompletion } from '../wire/responses-answer.ts';
import { ResponsesStream } from '../wire/responses-stream.ts';
import type { ResponsesEcho } from '../wire/responses-request.ts';

/** The raw response of a relayed stream, its writes rewritten into Responses events. */
class TranslatedStream implements SinkStream {
  readonly #raw: SinkStream;
  readonly #sink: ResponsesSink;
  #stream: ResponsesStream | null = null;

  constructor(raw: SinkStream, sink: ResponsesSink) {
    this.#raw = raw;
    this.#sink = sink;
  }

  get writableEnded(): boolean {
    return this.#raw.writableEnded;
  }
  get writableFinished(): boolean {
    return this.#raw.writableFinished;
  }
  get destroyed(): boolean {
    return this.#raw.destroyed;
  }
  get socket(): SinkStream['socket'] {
    return this.#raw.socket;
  }

  writeHead(status: number, headers: Record<string, string>): unknown {
    if (status === 200 && /event-stream/.test(headers['content-type'] ?? '')) this.#stream = this.#sink.newStream(headers);
    return this.#raw.writeHead(status, headers);
  }
  flushHeaders(): void {
    this.#raw.flushHeaders();
  }
  write(chunk: string): boolean {
    const out = this.#stream ? this.#stream.push(chunk) : chunk;
    return out === '' ? true : this.#raw.write(out);
  }
  end(chunk?: string): unknown {
    return this.#raw.end(this.#stream && chunk !== undefined ? this.#stream.push(chunk) : chunk);
  }
  cork(): void {
    this.#raw.cork();
  }
  uncork(): void {
    this.#raw.uncork();
  }
  on(event: 'close' | 'drain', listener: () => void): unknown {
    return this.#raw.on(event, listener);
  }
  once(event: 'close' | 'drain', listener: () => void): unknown {
    return this.#raw.once(event, listener);
  }
  removeListener(event: 'close' | 'drain', listener: () => void): unknown {
    return this.#raw.removeListener(event, listener);
  }
}

export class ResponsesSink implements ResponseSink {
  readonly #reply: ResponseSink;
  readonly #echo: ResponsesEcho;
  readonly raw: SinkStream;
  #status = 200;
  #headers: Record<string, string> = {};

  constructor(reply: ResponseSink, echo: ResponsesEcho) {
    this.#reply = reply;
    this.#echo = echo;
    this.raw = new TranslatedStream(reply.raw, this);
  }

  get elapsedTime(): number {
    return this.#reply.elapsedTime;
  }

  /** A translator for a stream whose headers are these (the response id is the call's). */
  newStream(headers: Record<string, string>): ResponsesStream {
    return new ResponsesStream(new ResponseIds(headers['x-optimizer-call-id']), this.#echo);
  }

  code(status: number): this {
    this.#status = status;
    this.#reply.code(status);
    return this;
  }

  headers(values: Record<string, string>): this {
    Object.assign(this.#headers, values);
    this.#reply.headers(values);
    return this;
  }

  header(name: string, value: string): this {
    this.#headers[name] = value;
    this.#reply.header(name, value);
    return this;
  }

  hijack(): unknown {
    return this.#reply.hijack();
  }

  send(payload: string): unknown {
    if (this.#status !== 200) return this.#reply.send(payload);
    const type = this.#headers['content-type'] ?? '';
    if (/event-stream/.test(type)) {
      const stream = this.newStream(this.#headers);
      return this.#reply.send(stream.push(payload));
    }
    if (/json/.test(type)) return this.#reply.send(responseFromCompletion(payload, new ResponseIds(this.#headers['x-optimizer-call-id']), this.#echo));
    return this.#reply.send(payload);
  }
}
