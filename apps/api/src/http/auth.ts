// Bearer authentication for tenant routes and admin routes; on control-plane routes a
// dashboard session cookie stands for the tenant too, with a CSRF check on writes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import type { AdminAuth } from '../tenancy/admin-auth.ts';
import type { KeyCache, Principal } from '../tenancy/key-cache.ts';
import type { Sessions } from '../tenancy/sessions.ts';
import { TENANT_KEY_PREFIX } from '../security/secrets.ts';
import { checkCsrf, sessionIdOf } from './session-cookie.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function bearer(request: FastifyRequest): string | null {
  const h = request.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

/** The tenant a request's bearer key names; missing_api_key or invalid_api_key otherwise. */
export async function tenantOf(keys: KeyCache, request: FastifyRequest): Promise<Principal> {
  const key = bearer(request);
  if (!key) throw new ApiError('missing_api_key');
  // an address past the bad-key limit: a key not already known here is refused unlooked-up (limits/door-throttle.ts)
  const blocked = request.server.doors?.blocked(request.ip) ?? null;
  if (blocked !== null && !keys.cached(key)) throw blocked;
  if (!key.startsWith(TENANT_KEY_PREFIX)) throw await badKey(request, new ApiError('invalid_api_key'));
  const p = await keys.resolve(key);
  if (!p) throw await badKey(request, new ApiError('invalid_api_key'));
  return p;
}

/** A refused bearer key, counted against the client address: the refusal, or the 429 once past the limit. */
async function badKey(request: FastifyRequest, err: ApiError): Promise<ApiError> {
  const doors = request.server.doors;
  return doors ? doors.failed(request.ip, err) : err;
}

export function tenantAuth(keys: KeyCache) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    request.principal = await tenantOf(keys, request);
  };
}

export interface ControlPrincipal {
  principal: Principal;
  /** Authenticated by the session cookie (its writes must pass the CSRF check), not a bearer key. */
  viaCookie: boolean;
}

/**
 * Who is asking on the control plane, on every door: a bearer key when an `Authorization`
 * header is sent (a bad one is refused, never a fallback to the cookie), else the session
 * cookie. Missing or unknown: the catalogue's 401.
 */
export async function controlPrincipal(s: { keys: KeyCache; sessions: Sessions }, request: FastifyRequest): Promise<ControlPrincipal> {
  const id = request.headers.authorization === undefined ? sessionIdOf(request) : null;
  if (id === null) return { principal: await tenantOf(s.keys, request), viaCookie: false };
  const p = await s.sessions.resolve(id);
  if (!p) throw new ApiError('missing_api_key');
  return { principal: p, viaCookie: true };
}

/**
 * Control-plane routes (everything tenant-facing on `/v1` but the data plane): a bearer key
 * when one is sent, else the session cookie, whose writes must pass the CSRF check. The
 * data plane keeps `tenantAuth`: bearer only.
 */
export function controlAuth(s: { keys: KeyCache; sessions: Sessions }) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const { principal, viaCookie } = await controlPrincipal(s, request);
    if (viaCookie) checkCsrf(request);
    request.principal = principal;
  };
}

export function adminAuth(admin: AdminAuth) {
  return async function authenticateAdmin(request: FastifyRequest): Promise<void> {
    const key = bearer(request);
    if (!key || !admin.check(key)) throw await badKey(request, new ApiError('invalid_admin_key'));
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('missing_api_key');
  return request.principal;
}
