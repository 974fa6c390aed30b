// What the socket path hands its handler: a parsed hot-route request, and the handler's part
// (accept, authenticate, serve, refuse).
import type { Principal } from '../../tenancy/key-cache.ts';
import type { HotPath } from './head.ts';
import type { FastResponse } from './response.ts';

/** A parsed hot-route request: its path, lower-case header names, the body as text, the key's owner. */
export interface FastRequest {
  path: HotPath;
  headers: Record<string, string>;
  body: string;
  principal: Principal;
}

/** Serves hot-route requests; one it does not accept (before anything is written) goes to node:http. */
export interface FastHandler {
  accepts(headers: Record<string, string>): boolean;
  /**
   * Checks the bearer key as soon as the head is read, before any of the body: the key's
   * owner (or a promise of it); a throw (a rejection) when the request is refused.
   */
  authenticate(headers: Record<string, string>, remoteAddress?: string): Principal | Promise<Principal>;
  serve(request: FastRequest, res: FastResponse): void;
  /** Answers a request refused at its head (the reply closes the connection). */
  refuse(err: unknown, headers: Record<string, string>, res: FastResponse, path: HotPath): void;
}
