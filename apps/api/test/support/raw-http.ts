// A raw TCP client for HTTP/1.1 tests: writes exactly the bytes given, and collects the
// complete answers that come back (Content-Length, chunked, or up to the close), with
// when each arrived and when the server closed.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** ms after the connection opened. */
  at: number;
}

export interface RawConnection {
  socket: Socket;
  answers: RawAnswer[];
  /** ms after opening at which the server closed (or reset) the connection; null while open. */
  closedAt: () => number | null;
  closed: () => boolean;
  /** Bytes received that do not (yet) form a complete answer. */
  rest: () => Buffer;
  openedAt: number;
}

export function openRaw(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const openedAt = Date.now();
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => resolve(conn));
    const answers: RawAnswer[] = [];
    let closedAt: number | null = null;
    let buf = Buffer.alloc(0);
    const conn: RawConnection = { socket, answers, closedAt: () => closedAt, closed: () => closedAt !== null, rest: () => buf, openedAt };
    socket.on('error', (e) => (closedAt === null && answers.length === 0 && !socket.readable ? reject(e) : undefined));
    socket.on('close', () => {
      closedAt = Date.now() - openedAt;
    });
    socket.on('end', () => {
      // an answer without framing runs to the close
      if (buf.length > 0) take(true);
    });
    socket.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      take(false);
    });
    function take(atEnd: boolean): void {
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [line, ...rest] = buf.toString('latin1', 0, end).split('\r\n');
        const headers = Object.fromEntries(rest.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const status = Number(line!.split(' ')[1]);
        if (status >= 100 && status < 200) {
          buf = buf.subarray(end + 4); // an interim answer (100 Continue): no body, the real one follows
          continue;
        }
        let body: string;
        let used: number;
        if (headers['transfer-encoding'] === 'chunked') {
          let i = end + 4;
          const parts: Buffer[] = [];
          for (;;) {
            const nl = buf.indexOf('\r\n', i);
            if (nl < 0) return;
            const size = parseInt(buf.toString('latin1', i, nl), 16);
            if (buf.length < nl + 2 + size + 2) return;
            parts.push(buf.subarray(nl + 2, nl + 2 + size));
            i = nl + 2 + size + 2;
            if (size === 0) break;
          }
          body = Buffer.concat(parts).toString('utf8');
          used = i;
        } else if (headers['content-length'] !== undefined) {
          const length = Number(headers['content-length']);
          if (buf.length < end + 4 + length) return;
          body = buf.toString('utf8', end + 4, end + 4 + length);
          used = end + 4 + length;
        } else {
          if (!atEnd) return;
          body = buf.toString('utf8', end + 4);
          used = buf.length;
        }
        answers.push({ status, headers, body, at: Date.now() - openedAt });
        buf = buf.subarray(used);
      }
    }
  });
}

/** A POST /v1/chat/completions head and body as one string. */
export function chatRequest(opts: { key?: string; body: string; extra?: string; contentLength?: number }): string {
  const auth = opts.key === undefined ? '' : `Authorization: Bearer ${opts.key}\r\n`;
  const length = opts.contentLength ?? Buffer.byteLength(opts.body);
  return `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${auth}${opts.extra ?? ''}Content-Length: ${length}\r\n\r\n${opts.body}`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once the socket has room again, or has closed (a server that refused a body may close mid-write). */
export function drainedOrClosed(socket: Socket): Promise<void> {
  return new Promise<void>((r) => {
    const done = () => {
      socket.off('drain', done).off('close', done);
      r();
    };
    socket.on('drain', done).on('close', done);
  });
}
