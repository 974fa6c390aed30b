// A vendor answer that is not the vendor's shape (a 200 whose JSON the translator cannot
// read as a completion, a set of vectors or a stream event) is never passed on: it is the
// 502 `upstream_invalid`. Adapters throw `VendorShapeError` naming what was missing; the
// pipeline turns any failure to read an answer into the 502 and logs the raw body,
// truncated and with every secret the call sent replaced (providers/redact.ts).
import { ApiError } from '../errors.ts';
import { redact } from './redact.ts';

/** How much of a malformed answer goes to the log. */
export const SAMPLE_CHARS = 2_000;

export class VendorShapeError extends Error {
  override name = 'VendorShapeError';
  /** The offending text (a body or one stream event), as received. */
  readonly raw: string;
  constructor(reason: string, raw = '') {
    super(reason);
    this.raw = raw;
  }
}

/** What the log keeps of a vendor's body: its start, secrets redacted. */
export function sampleOf(raw: string, secrets: readonly string[]): string {
  const cut = raw.length > SAMPLE_CHARS ? `${raw.slice(0, SAMPLE_CHARS)}… (${raw.length} characters)` : raw;
  return redact(cut, secrets);
}

/** What an `upstream_invalid` carries for the log (never for the client). */
export interface InvalidDetail {
  provider: string;
  reason: string;
  sample: string;
}

/**
 * The 502 for an answer the adapter could not read. `err` is what reading threw (a
 * VendorShapeError names the missing part; anything else is the body failing to parse);
 * `raw` is the body when the error does not carry its own piece.
 */
export function upstreamInvalid(provider: string, err: unknown, raw: string, secrets: readonly string[]): ApiError {
  const shape = err instanceof VendorShapeError ? err : null;
  // the client hears only the adapter's own words; a parser's message may quote the vendor's text
  const said = shape ? shape.message : 'unreadable';
  const reason = redact(String((err as Error | null)?.message ?? err).slice(0, 200), secrets);
  const detail: InvalidDetail = { provider, reason, sample: sampleOf(shape?.raw || raw, secrets) };
  return new ApiError('upstream_invalid', `${provider} answered with a body that is not its API's shape (${said}); it was not passed on.`, { cause: detail });
}

/** The log detail of an `upstream_invalid`, or null for any other error. */
export function invalidDetail(e: ApiError): InvalidDetail | null {
  if (e.code !== 'upstream_invalid') return null;
  const c = e.cause as InvalidDetail | undefined;
  return c && typeof c.sample === 'string' ? c : null;
}

/** Logs what a vendor sent that could not be read: the one place its raw body reaches the log. */
export function logInvalid(log: { warn(obj: object, msg: string): void }, e: ApiError, callId?: string): void {
  const d = invalidDetail(e);
  if (d) log.warn({ call_id: callId, provider: d.provider, reason: d.reason, vendor_body: d.sample }, 'vendor answer not in its API shape: not passed on');
}
