import { describe, expect, it } from 'vitest';
import { SseSplitter, eventData } from './sse.ts';

describe('the SSE splitter', () => {
  it('yields whole events across arbitrary byte splits, LF or CRLF', () => {
    const text = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\n: comment\n\ndata: [DONE]\n\n';
    const bytes = Buffer.from(text);
    for (const step of [1, 2, 3, 7, bytes.length]) {
      const s = new SseSplitter();
      const events: string[] = [];
      for (let i = 0; i < bytes.length; i += step) events.push(...s.push(bytes.subarray(i, i + step)));
      expect(events.map(eventData)).toEqual(['{"a":1}', '{"b":2}', null, '[DONE]']);
    }
  });

  // Regression: each read was decoded on its own, so a character split across reads became U+FFFD.
  it('keeps a multi-byte UTF-8 character split across two reads whole', () => {
    const bytes = Buffer.from('data: {"t":"héllo → 世界"}\n\n');
    const s = new SseSplitter();
    const events = [...s.push(bytes.subarray(0, 14)), ...s.push(bytes.subarray(14, 15)), ...s.push(bytes.subarray(15))];
    expect(eventData(events[0]!)).toBe('{"t":"héllo → 世界"}');
  });
});
