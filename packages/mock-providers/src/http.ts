// Small node:http helpers: body reading, JSON replies, abortable waits, listen/close.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a faulty stream stops after `afterChunks` chunks. */
export interface StreamCut {
  afterChunks: number;
  then: 'reset' | 'stall' | 'error';
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function delay(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Ends a stream the way a faulty vendor does once its cut is reached: `reset` drops the
 * connection after what was written reached the client, `stall` holds it open until the
 * client leaves, `error` ends it with the vendor's own error frame.
 */
export async function endCut(res: ServerResponse, cut: StreamCut, opts: { signal: AbortSignal; destroy: () => void }, flushed: Promise<void>, errorFrame: () => string | Uint8Array): Promise<void> {
  if (cut.then === 'reset') {
    await flushed;
    return opts.destroy();
  }
  if (cut.then === 'stall') return untilAborted(opts.signal);
  res.end(errorFrame());
}

/** Resolves only once `signal` aborts. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops accepting connections and drops the open ones (streams that never end included). */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}
