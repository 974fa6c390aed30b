// Bearer authentication for tenant routes and admin routes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import type { AdminAuth } from '../tenancy/admin-auth.ts';
import type { KeyCache, Principal } from '../tenancy/key-cache.ts';
import { TENANT_KEY_PREFIX } from '../security/secrets.ts';

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
  if (!key.startsWith(TENANT_KEY_PREFIX)) throw new ApiError('invalid_api_key');
  const p = await keys.resolve(key);
  if (!p) throw new ApiError('invalid_api_key');
  return p;
}

export function tenantAuth(keys: KeyCache) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    request.principal = await tenantOf(keys, request);
  };
}

export function adminAuth(admin: AdminAuth) {
  return async function authenticateAdmin(request: FastifyRequest): Promise<void> {
    const key = bearer(request);
    if (!key || !admin.check(key)) throw new ApiError('invalid_admin_key');
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('missing_api_key');
  return request.principal;
}
