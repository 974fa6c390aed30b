// A server-sent events reader (the WHATWG event-stream format): fields per line,
// events end at a blank line, multi-line data joined with "\n", ":" lines are comments.

export interface SSEEvent {
  event: string;
  data: string;
  id: string | null;
}

/** Splits a byte stream into lines, accepting \n, \r\n and \r (even split across chunks). */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (c !== '\n' && c !== '\r') continue;
        // A lone \r at the end of the buffer may be the first half of \r\n.
        if (c === '\r' && i === buffer.length - 1 && !done) break;
        yield buffer.slice(start, i);
        if (c === '\r' && buffer[i + 1] === '\n') i++;
        start = i + 1;
      }
      buffer = buffer.slice(start);
      if (done) {
        if (buffer.length > 0) yield buffer;
        return;
      }
    }
  } finally {
    // Stops the download when the consumer leaves early; a no-op once the stream is done.
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Yields each event; an event without data (only comments or ids) is skipped. */
export async function* parseSSE(body: ReadableStream<Uint8Array>): AsyncGenerator<SSEEvent> {
  let event = '';
  let data: string[] = [];
  let id: string | null = null;
  let first = true;
  for await (let line of lines(body)) {
    if (first) {
      first = false;
      if (line.startsWith('\uFEFF')) line = line.slice(1);
    }
    if (line === '') {
      if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id };
      event = '';
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id') id = value;
  }
  // A final event not followed by a blank line still counts.
  if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id };
}
