// The head of a request on the socket path: which hot route its request line names, and its
// headers when they are all the hot route takes (anything else hands the connection to node:http).

/** The routes read off the socket. */
export const HOT_PATHS = ['/v1/chat/completions', '/v1/responses'] as const;
export type HotPath = (typeof HOT_PATHS)[number];
const REQUEST_LINES = HOT_PATHS.map((path) => ({ path, line: `POST ${path} HTTP/1.1\r\n` }));

/**
 * The hot route whose request line the buffer starts with; undefined while the bytes so far
 * begin one without completing it; null when they begin none (the request goes to node:http).
 */
export function requestLineOf(buf: Buffer): { path: HotPath; line: string } | null | undefined {
  for (const r of REQUEST_LINES) {
    const prefix = Math.min(buf.length, r.line.length);
    if (buf.toString('latin1', 0, prefix) === r.line.slice(0, prefix)) return buf.length >= r.line.length ? r : undefined;
  }
  return null;
}

/** Heads larger than this go to node:http, whose limit (16 KiB, counted its own way) then decides. */
export const MAX_HEAD = 8 * 1024;
const MAX_HEADERS = 100;
// A field value may hold tab, visible characters and obs-text, nothing else (RFC 9110 5.5).
// eslint-disable-next-line no-control-regex -- control characters are exactly what it refuses
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([^\0-\x08\x0a-\x1f\x7f]*?)[ \t]*$/;
/** Headers whose presence means node:http must frame or route the request. */
const HANDED_OFF = new Set(['transfer-encoding', 'expect', 'upgrade']);

/** Lower-case header map, or null when the head is anything the hot route does not take. */
export function parseHeaders(text: string): Record<string, string> | null {
  const headers: Record<string, string> = {};
  if (text === '') return null;
  const lines = text.split('\r\n');
  if (lines.length > MAX_HEADERS) return null;
  for (const line of lines) {
    const m = HEADER_LINE.exec(line);
    if (m === null) return null;
    const name = m[1]!.toLowerCase();
    if (name in headers || HANDED_OFF.has(name)) return null;
    headers[name] = m[2]!;
  }
  if (headers.host === undefined || !/^\d{1,10}$/.test(headers['content-length'] ?? '')) return null;
  const connection = headers.connection;
  if (connection !== undefined && connection.toLowerCase() !== 'keep-alive') return null;
  return headers;
}
