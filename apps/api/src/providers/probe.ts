// A live call that confirms a provider's base URL and key work: each wire format's
// cheapest authenticated request (listing models). A failure is reported in our
// catalogue's words (the vendor's status, or the transport error's code), never in the
// vendor's own text, which may echo the key.
import type { Outbound } from './outbound.ts';
import { codeForStatus, vendorMessage } from './vendor-error.ts';
import type { ProviderInfo } from './types.ts';

export interface ProbeResult {
  ok: boolean;
  status: number | null;
  latency_ms: number;
  error: string | null;
}

function probeRequest(p: ProviderInfo): { url: URL; headers: Record<string, string> } {
  const key = p.platformKey ?? '';
  switch (p.wire) {
    case 'anthropic':
      return { url: new URL(`${p.baseUrl}/models`), headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' } };
    case 'gemini':
      return { url: new URL(`${p.baseUrl}/models`), headers: { 'x-goog-api-key': key } };
    default:
      return { url: new URL(`${p.baseUrl}/models`), headers: key ? { authorization: `Bearer ${key}` } : {} };
  }
}

export async function probeProvider(outbound: Outbound, p: ProviderInfo): Promise<ProbeResult> {
  const { url, headers } = probeRequest(p);
  const t0 = performance.now();
  try {
    const r = await outbound.request({ url, method: 'GET', headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(15_000), policy: p.addressPolicy });
    await r.body.text();
    const latency = Math.round((performance.now() - t0) * 10) / 10;
    if (r.statusCode < 400) return { ok: true, status: r.statusCode, latency_ms: latency, error: null };
    return { ok: false, status: r.statusCode, latency_ms: latency, error: vendorMessage(p.name, codeForStatus(r.statusCode)) };
  } catch (e) {
    return { ok: false, status: null, latency_ms: Math.round((performance.now() - t0) * 10) / 10, error: `${p.name} could not be reached (${transportCode(e)}).` };
  }
}

function transportCode(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
  return (e as Error).name === 'TimeoutError' ? 'timeout' : 'connection failed';
}
