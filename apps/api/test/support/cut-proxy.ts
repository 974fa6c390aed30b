// A TCP proxy on 127.0.0.1 that a test can cut (its listener and every connection) and
// restore on the same port: a dependency (PostgreSQL, Redis) going down under a running gateway.
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** Cut with `cut()`, restored on the same port with `open()` again. */
export class CutProxy {
  port = 0;
  #server: Server | null = null;
  readonly #sockets = new Set<Socket>();
  readonly target: { host: string; port: number };
  constructor(target: { host: string; port: number }) {
    this.target = target;
  }

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async cut(): Promise<void> {
    const server = this.#server!;
    this.#server = null;
    const closed = new Promise((resolve) => server.close(resolve));
    for (const s of this.#sockets) s.destroy();
    await closed;
  }
}
