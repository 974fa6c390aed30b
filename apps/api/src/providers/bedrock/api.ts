// Where a Converse call goes and how it is authenticated: the URL (model id
// URL-encoded into the path), the region, the AWS credentials packed into the
// provider key, and the SigV4 headers that sign the exact bytes sent (sign.ts).
//
// Provider key format: `ACCESS_KEY_ID:SECRET_ACCESS_KEY` or
// `ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN` (the registry builds the platform
// key from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN; a client
// sends the same string in x-provider-key).
import { ApiError } from '../../errors.ts';
import type { AdapterRequest, CallTarget, ProviderInfo } from '../types.ts';
import { signRequest, type AwsCredentials } from './sign.ts';
import { modelSegment } from '../model-id.ts';
import { urlOf } from '../url.ts';

export const SERVICE = 'bedrock';
export const EVENT_STREAM = 'application/vnd.amazon.eventstream';
const DEFAULT_REGION = 'us-east-1';
const ACCESS_KEY_ID = /^[A-Z0-9]{16,128}$/;

export const KEY_FORMAT = 'ACCESS_KEY_ID:SECRET_ACCESS_KEY or ACCESS_KEY_ID:SECRET_ACCESS_KEY:SESSION_TOKEN';

export function regionOf(provider: ProviderInfo): string {
  const configured = provider.options?.region;
  if (configured) return configured;
  const m = /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com$/.exec(urlOf(provider.baseUrl).hostname);
  return m?.[1] ?? DEFAULT_REGION;
}

/** POST {baseUrl}/model/{modelId}/converse[-stream]; the id's `:` and `/` travel percent-encoded. */
export function converseUrl(provider: ProviderInfo, model: string, stream: boolean): URL {
  return urlOf(`${provider.baseUrl}/model/${modelSegment(model)}/${stream ? 'converse-stream' : 'converse'}`);
}

/** Splits the provider key into AWS credentials, or null when it is not in that form. */
export function parseCredentials(apiKey: string): AwsCredentials | null {
  const parts = apiKey.trim().split(':');
  if (parts.length < 2 || parts.length > 3) return null;
  const [accessKeyId, secretAccessKey, sessionToken] = parts as [string, string, string | undefined];
  if (!ACCESS_KEY_ID.test(accessKeyId) || secretAccessKey.length === 0) return null;
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
}

/** The credentials, or the 401 a client gets for a key that cannot be AWS credentials (nothing is sent). */
export function credentialsOrThrow(provider: ProviderInfo, apiKey: string): AwsCredentials {
  const creds = parseCredentials(apiKey);
  if (creds) return creds;
  throw new ApiError('upstream_auth', `${provider.name}: the provider key is not AWS credentials; send ${KEY_FORMAT}.`, {
    extra: { vendor_status: null, vendor_type: 'UnrecognizedClientException', vendor_code: null },
  });
}

/** The headers of one call before it is signed: what it sends and what it accepts back. */
export function unsignedHeaders(stream: boolean): Record<string, string> {
  return { 'content-type': 'application/json', accept: stream ? EVENT_STREAM : 'application/json' };
}

/**
 * Signs a built request with SigV4 over its body as it will be sent, at `now`: the credentials
 * come from the provider key again (buildRequest has already refused a key that is not them).
 * `content-type` is signed with the host, the date and the body's hash; `accept` is not.
 */
export async function signBedrock(req: AdapterRequest, target: CallTarget, now = new Date()): Promise<AdapterRequest> {
  const { accept, ...toSign } = req.headers;
  const signed = await signRequest(
    { method: 'POST', host: req.url.host, path: req.url.pathname, query: req.url.search.slice(1), headers: toSign, body: req.body },
    { credentials: credentialsOrThrow(target.provider, target.apiKey), region: regionOf(target.provider), service: SERVICE, date: now, contentSha256Header: true },
  );
  // The outbound client writes Host from the URL itself (url.host), the same value that was signed.
  const { host: _host, ...headers } = signed.headers;
  return { ...req, headers: accept === undefined ? headers : { ...headers, accept } };
}
