// The dashboard's calls: sign-in and sign-out over REST (they set and clear the session
// cookie), everything else as codegen'd GraphQL documents on that cookie (the shared
// client, with no bearer). The browser sends the cookie and its Origin on its own; the
// server's CSRF check needs nothing more.
import { GqlError, gqlRequest } from '../graphql-client.ts';
import type { TypedDocumentString } from '../gql/graphql.ts';

export function gql<R, V>(doc: TypedDocumentString<R, V>, variables: V): Promise<R> {
  return gqlRequest(doc, variables);
}

async function post(path: string, body: unknown): Promise<Response> {
  try {
    return await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch {
    throw new Error('Could not reach the gateway. Is it running?');
  }
}

export async function login(email: string, apiKey: string): Promise<void> {
  const res = await post('/v1/login', { email, api_key: apiKey });
  if (res.ok) return;
  const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
  throw new Error(body.error?.message ?? `Sign-in failed (HTTP ${res.status}).`);
}

export async function logout(): Promise<void> {
  await post('/v1/logout', {});
}

const SIGNED_OUT = ['missing_api_key', 'invalid_api_key', 'session_expired'];

/** True when the error means the session is missing or over. */
export function signedOut(e: unknown): boolean {
  return e instanceof GqlError && (e.code === 'UNAUTHENTICATED' || SIGNED_OUT.includes(e.apiCode ?? ''));
}

export { pct, usd } from './money.ts';
