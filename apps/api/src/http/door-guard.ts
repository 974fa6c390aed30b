// What every route may read, and who may knock how often (docs/decisions.md, "Hostile input").
// Each route gets its own body limit, which Fastify checks from Content-Length before reading and
// again while the body streams (a chunked body is cut off at the limit), before any parsing: the
// data plane takes BODY_LIMIT_BYTES, routes without a key a few KB, the payment webhook what
// Stripe sends, everything else (behind a key or session, checked first) CONTROL_BODY_LIMIT_BYTES.
// Signup, login, the email confirmation, the estimate and the admin routes count each attempt per
// client address before anything else runs; an unknown path is answered before its body is read.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import type { Socket } from 'node:net';
import type { Config } from '../config.ts';
import type { Door, DoorThrottle } from '../limits/door-throttle.ts';
import { REFUSED_BODY_READ } from './fast-server.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The doors' abuse limits (limits/door-throttle.ts), for the auth checks. */
    doors: DoorThrottle | null;
  }
}

type Limits = Pick<Config, 'BODY_LIMIT_BYTES' | 'PUBLIC_BODY_LIMIT_BYTES' | 'WEBHOOK_BODY_LIMIT_BYTES' | 'CONTROL_BODY_LIMIT_BYTES'>;

/** Routes open without a key, and the door each counts against (null: not counted). */
const PUBLIC: Record<string, Exclude<Door, 'bad_key' | 'admin'> | null> = {
  '/v1/signup': 'signup',
  '/v1/signup/confirm': 'confirm',
  '/v1/login': 'login',
  '/v1/logout': null,
  '/v1/estimate': 'estimate',
};
/** The estimate's tRPC procedure (capabilities/billing.ts, under `billing`). */
const TRPC_ESTIMATE = 'billing.estimate';
const DATA_PLANE = new Set(['/v1/chat/completions', '/v1/responses', '/v1/embeddings']);
const WEBHOOK = '/v1/billing/webhook';
const ADMIN_PREFIX = '/v1/admin/';

/** The body limit of a route, by its path; BODY_LIMIT_BYTES bounds them all. */
export function bodyLimitOf(url: string, c: Limits): number {
  if (DATA_PLANE.has(url)) return c.BODY_LIMIT_BYTES;
  if (url === WEBHOOK) return Math.min(c.WEBHOOK_BODY_LIMIT_BYTES, c.BODY_LIMIT_BYTES);
  if (url in PUBLIC) return Math.min(c.PUBLIC_BODY_LIMIT_BYTES, c.BODY_LIMIT_BYTES);
  return Math.min(c.CONTROL_BODY_LIMIT_BYTES, c.BODY_LIMIT_BYTES);
}

/** The door a route counts against before anything else runs, if any. */
export function doorOf(url: string): Exclude<Door, 'bad_key'> | null {
  if (url.startsWith(ADMIN_PREFIX)) return 'admin';
  return PUBLIC[url] ?? null;
}

/**
 * Whether a request still has body bytes coming that are not worth reading to drop: more than
 * REFUSED_BODY_READ announced, or a chunked body of unknown length.
 */
export function largeBodyPending(request: FastifyRequest): boolean {
  const te = request.headers['transfer-encoding'];
  // chunked: whenever the body was not read to its end (refused before or while reading), however
  // much of it happens to have arrived, so the answer does not depend on the network's timing
  if (te !== undefined && te !== '') return !request.raw.readableEnded;
  return !request.raw.complete && Number(request.headers['content-length'] ?? 0) > REFUSED_BODY_READ;
}

/** How long a connection whose body was left unread stays open after its answer, for the client to read it. */
const LINGER_MS = 1_000;
const lingering = new WeakSet<Socket>();

/**
 * Closes the connection after this answer when the body was left unread: node:http would read it
 * all to drop it. Reading stops, the answer goes out with a FIN, and the socket is destroyed a
 * moment later (as the socket path does, http/fast-server.ts): closed at once with bytes still
 * arriving, the client would get a reset before it could read the answer.
 */
export function closeIfBodyPending(request: FastifyRequest, reply: FastifyReply): void {
  if (!largeBodyPending(request)) return;
  void reply.header('connection', 'close');
  const socket = request.raw.socket;
  // no more of it is read from now on, whatever node:http then asks of the socket (it resumes an
  // unconsumed request to drain it, and a body cut off at its limit was left flowing): each piece
  // read and dropped would still be a buffer for the garbage collector
  socket.pause();
  const handle = (socket as unknown as { _handle?: { readStop?: () => number; readStart?: () => number; reading?: boolean } | null })._handle;
  if (handle?.readStop) {
    handle.readStop();
    handle.reading = false;
    handle.readStart = () => 0;
  }
  if (lingering.has(socket)) return;
  lingering.add(socket);
  // node:http ends a `connection: close` answer's socket with destroySoon, after resuming the request to drain it
  socket.destroySoon = function lingeringClose(this: Socket): void {
    this.pause();
    setImmediate(() => this.pause()); // after the drain's resume, which node:http schedules
    this.end();
    setTimeout(() => this.destroy(), LINGER_MS).unref();
  };
}

/** A hook counting the request against `door` (429 past it) by the client address (`request.ip`, trust proxy as configured). */
function counting(doors: DoorThrottle, door: Exclude<Door, 'bad_key'>): onRequestHookHandler {
  return async function doorLimit(request) {
    await doors.hit(door, request.ip);
  };
}

/**
 * Installs the limits; call before any route is registered (the onRoute hook sees those
 * registered after it, plugins included).
 */
export function installDoorGuards(app: FastifyInstance, o: { config: Limits; doors: DoorThrottle; notFound: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> }): void {
  app.decorate('doors', o.doors);
  app.addHook('onRoute', (route: RouteOptions) => {
    const url = route.url;
    route.bodyLimit ??= bodyLimitOf(url, o.config);
    const door = doorOf(url);
    if (door !== null) route.onRequest = [counting(o.doors, door), ...[route.onRequest ?? []].flat()];
  });
  app.addHook('onRequest', async (request, reply) => {
    // an unknown path: answered now, its body never read (the not-found handler runs after parsing)
    if (request.is404) {
      closeIfBodyPending(request, reply);
      return o.notFound(request, reply);
    }
    // the tRPC door's estimate (`billing.estimate`) is open to anyone too (a query: its input rides in the URL)
    const url = request.url;
    if (url.startsWith('/trpc/')) {
      const end = url.indexOf('?');
      const procedures = (end < 0 ? url.slice(6) : url.slice(6, end)).split(',');
      if (procedures.includes(TRPC_ESTIMATE)) await o.doors.hit('estimate', request.ip);
    }
  });
}
