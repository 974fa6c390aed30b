// The HTTP/1.1 text the client writes and the rules by which it reads an answer's framing and
// its Keep-Alive hint.
import { type ClientRequest, UpstreamError } from './types.ts';

/** A server's Keep-Alive timeout is its own: reuse stops this long before it, so a request never races its close. */
export const KEEP_ALIVE_MARGIN_MS = 1_000;

/**
 * How long a connection may stay idle after this answer: the server's `Keep-Alive: timeout=`
 * hint less the margin, capped at `max`; 0 when the hint leaves no time to reuse it.
 */
export function keepAliveFor(header: string | string[] | undefined, max: number): number {
  const text = Array.isArray(header) ? header.join(',') : header;
  const m = text === undefined ? null : /(?:^|[,;\s])timeout\s*=\s*(\d{1,9})/i.exec(text);
  if (m === null) return max;
  return Math.max(0, Math.min(max, Number(m[1]) * 1000 - KEEP_ALIVE_MARGIN_MS));
}

export const MAX_HEAD = 64 * 1024;
export const MAX_CHUNK_LINE = 4096;
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const UNSAFE_VALUE = /[\r\n\0]/;
const FRAMING = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);
export const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;

/** How an answer's body ends: no body, Content-Length, chunked, or the connection's close. */
export const Framing = { None: 0, Length: 1, Chunked: 2, UntilClose: 3 } as const;
export type Framing = (typeof Framing)[keyof typeof Framing];

export function framingOf(status: number, headers: Record<string, string | string[]>): Framing {
  if (status === 204 || status === 304) return Framing.None;
  const te = headers['transfer-encoding'];
  if (te !== undefined) {
    const codings = (Array.isArray(te) ? te.join(',') : te).toLowerCase();
    return codings.trim().endsWith('chunked') ? Framing.Chunked : Framing.UntilClose;
  }
  const cl = headers['content-length'];
  if (cl !== undefined) {
    if (Array.isArray(cl) || !/^\d{1,15}$/.test(cl)) throw new UpstreamError('UND_ERR_SOCKET', 'invalid content-length');
    return Framing.Length;
  }
  return Framing.UntilClose;
}

/** The request as it goes on the wire, in one piece; a header that could split it is refused. */
export function requestText(url: URL, req: ClientRequest): string {
  let head = `${req.method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n`;
  for (const name in req.headers) {
    if (FRAMING.has(name)) continue; // the client frames the request itself
    const value = req.headers[name]!;
    if (!TOKEN.test(name) || UNSAFE_VALUE.test(value)) throw new UpstreamError('UND_ERR_INVALID_ARG', `invalid request header ${JSON.stringify(name)}`);
    head += `${name}: ${value}\r\n`;
  }
  if (req.body === undefined) return `${head}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(req.body)}\r\n\r\n${req.body}`;
}
