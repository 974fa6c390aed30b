// The session cookie and the CSRF rule for cookie-authenticated writes (design §7).
// Over HTTPS (the socket's, or a trusted proxy's X-Forwarded-Proto) the cookie is
// `__Host-session` with Secure; over plain HTTP it is `session`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

const SECURE_NAME = '__Host-session';
const PLAIN_NAME = 'session';

function overHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

/** The session id the request's cookie carries, under the name that fits its scheme. */
export function sessionIdOf(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  const name = overHttps(request) ? SECURE_NAME : PLAIN_NAME;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : null;
  }
  return null;
}

function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const https = overHttps(request);
  const attrs = [`${https ? SECURE_NAME : PLAIN_NAME}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
  if (https) attrs.push('Secure');
  return attrs.join('; ');
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, id: string, ttlMs: number): void {
  reply.header('set-cookie', cookie(request, id, Math.floor(ttlMs / 1000)));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', cookie(request, '', 0));
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a cookie-authenticated write that a browser did not send from this gateway's own
 * pages: it must say `Sec-Fetch-Site: same-origin` (or `none`, typed by the user), or carry an
 * `Origin` equal to the gateway's own origin. A request with neither is refused too.
 */
export function checkCsrf(request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method)) return;
  const site = request.headers['sec-fetch-site'];
  if (site === 'same-origin' || site === 'none') return;
  const origin = request.headers.origin;
  if (origin !== undefined && origin === `${request.protocol}://${request.host}`) return;
  throw new ApiError('csrf_rejected');
}

/** checkCsrf's verdict as a value: the error a write would answer, or null. For doors that learn later whether a request writes. */
export function csrfErrorOf(request: FastifyRequest): ApiError | null {
  try {
    checkCsrf(request);
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}
