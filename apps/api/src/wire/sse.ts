// Splits a byte stream of server-sent events into whole events as they arrive,
// without waiting for the stream to end.
import { StringDecoder } from 'node:string_decoder';

export class SseSplitter {
  #buf = '';
  /** Keeps a UTF-8 character split across two reads whole. */
  readonly #decoder = new StringDecoder('utf8');

  /** Feeds bytes; returns the complete events (their raw text, without the blank line). */
  push(chunk: Buffer | string): string[] {
    this.#buf += typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    const out: string[] = [];
    // Most streams use LF only: then there is no CRLF separator to look for in any event of this read.
    const mayCrlf = this.#buf.includes('\r\n\r\n');
    for (;;) {
      const lf = this.#buf.indexOf('\n\n');
      const crlf = mayCrlf ? this.#buf.indexOf('\r\n\r\n') : -1;
      let end: number;
      let sep: number;
      if (lf === -1 && crlf === -1) break;
      if (crlf !== -1 && (lf === -1 || crlf < lf)) {
        end = crlf;
        sep = 4;
      } else {
        end = lf;
        sep = 2;
      }
      out.push(this.#buf.slice(0, end));
      this.#buf = this.#buf.slice(end + sep);
    }
    return out;
  }

  /** Whatever is left when the stream ends (an event cut off mid-way). */
  rest(): string {
    this.#buf += this.#decoder.end();
    return this.#buf;
  }
}

/** The data payload of one event ("data:" lines joined), or null for comments and empty events. */
export function eventData(event: string): string | null {
  // The common case, one `data: …` line, without splitting.
  if (event.startsWith('data: ') && !event.includes('\n')) return event.slice(6);
  let data: string | null = null;
  for (const line of event.split(/\r?\n/)) {
    if (line.startsWith('data:')) {
      const v = line.slice(line.charAt(5) === ' ' ? 6 : 5);
      data = data === null ? v : `${data}\n${v}`;
    }
  }
  return data;
}
