// A fetch for the openai client under LangChain that notes each completion's cost block and
// call id by the completion's id, from a JSON answer or from the stream's final chunk (read
// from a second branch of the body, so the client's own reading is untouched).
import { callInfo, readBlock, type OptimizerCallInfo } from '../shared/meta.ts';

type Waiter = (info: OptimizerCallInfo | null) => void;

export class BlockCapture {
  readonly #seen = new Map<string, OptimizerCallInfo | null>();
  readonly #waiting = new Map<string, Waiter[]>();

  #settle(id: string, info: OptimizerCallInfo | null): void {
    if (this.#seen.has(id) && this.#seen.get(id) !== null) return;
    this.#seen.set(id, info);
    for (const w of this.#waiting.get(id) ?? []) w(info);
    this.#waiting.delete(id);
  }

  /** The info for completion `id`, once its answer has been read; each id is handed out once. */
  take(id: string): Promise<OptimizerCallInfo | null> {
    if (this.#seen.has(id)) {
      const info = this.#seen.get(id) ?? null;
      this.#seen.delete(id);
      return Promise.resolve(info);
    }
    return new Promise((resolve) => {
      const list = this.#waiting.get(id) ?? [];
      list.push((info) => {
        this.#seen.delete(id);
        resolve(info);
      });
      this.#waiting.set(id, list);
    });
  }

  fetch(inner: typeof fetch = (i, init) => globalThis.fetch(i, init)): typeof fetch {
    return async (input, init) => {
      const res = await inner(input, init);
      if (!res.ok || !res.body || !String(input instanceof Request ? input.url : input).endsWith('/chat/completions')) return res;
      const type = res.headers.get('content-type') ?? '';
      if (type.includes('application/json')) {
        const body = (await res.clone().json()) as { id?: string };
        const block = readBlock(body);
        if (typeof body.id === 'string') this.#settle(body.id, block ? callInfo(block, res.headers) : null);
        return res;
      }
      if (!type.includes('text/event-stream')) return res;
      const [mine, theirs] = res.body.tee();
      void this.#readStream(mine, res.headers);
      return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
    };
  }

  async #readStream(body: ReadableStream<Uint8Array>, headers: Headers): Promise<void> {
    const decoder = new TextDecoder();
    let buf = '';
    let id: string | null = null;
    let info: OptimizerCallInfo | null = null;
    try {
      for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(bytes, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (!line.startsWith('data:') || line === 'data: [DONE]') continue;
          try {
            const chunk = JSON.parse(line.slice(5)) as { id?: string };
            if (id === null && typeof chunk.id === 'string') id = chunk.id;
            const block = readBlock(chunk);
            if (block) info = callInfo(block, headers);
          } catch {
            // a line that is not JSON is the client's business, not ours
          }
        }
      }
    } finally {
      if (id !== null) this.#settle(id, info);
    }
  }
}
