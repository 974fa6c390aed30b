// One error type for every failure the SDK reports. The API answers errors in three
// body shapes (REST, GraphQL, tRPC); toOptimizerError reads all three, and anything
// else (an HTML page, plain text, an empty body) still becomes an OptimizerError.

export interface OptimizerErrorInit {
  status: number;
  endpoint: string;
  message: string;
  code?: string | null;
  type?: string | null;
  param?: string | null;
  rawBody?: string;
  retryAfter?: number | null;
  /** A run-cap 402: how many managed runs the period allows and how many were used. */
  cap?: number | null;
  used?: number | null;
  cause?: unknown;
}

export class OptimizerError extends Error {
  override name = 'OptimizerError';
  /** HTTP status; 0 when no response was received (client-side validation, network failure). */
  readonly status: number;
  /** Method and path, e.g. "POST /v1/chat/completions". */
  readonly endpoint: string;
  readonly code: string | null;
  readonly type: string | null;
  readonly param: string | null;
  /** The response body exactly as received ("" when there was none). */
  readonly rawBody: string;
  /** Seconds to wait before retrying, from the Retry-After header; null when absent. */
  readonly retryAfter: number | null;
  /** On a run-cap 402: the managed runs the period allows; null otherwise. */
  readonly cap: number | null;
  /** On a run-cap 402: the managed runs used so far; null otherwise. */
  readonly used: number | null;

  constructor(init: OptimizerErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.endpoint = init.endpoint;
    this.code = init.code ?? null;
    this.type = init.type ?? null;
    this.param = init.param ?? null;
    this.rawBody = init.rawBody ?? '';
    this.retryAfter = init.retryAfter ?? null;
    this.cap = init.cap ?? null;
    this.used = init.used ?? null;
  }

  /** A payment error (HTTP 402): `type` says which (wallet_empty, subscription_required, ...). */
  get isPaymentRequired(): boolean {
    return this.status === 402;
  }
}

/** The `type` values a 402 carries (spec 7); others may be added, so it stays open. */
export type PaymentErrorType = 'wallet_empty' | 'dev_allowance_exhausted' | 'subscription_required' | 'spend_cap_reached' | 'run_cap_reached' | 'payment_method_required' | 'payment_declined' | (string & {});

export function isOptimizerError(e: unknown): e is OptimizerError {
  return e instanceof OptimizerError;
}

export type HeadersLike = Headers | Record<string, string | string[] | undefined> | null | undefined;

function header(headers: HeadersLike, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === lower && v !== undefined) return Array.isArray(v) ? (v[0] ?? null) : v;
  }
  return null;
}

/** Retry-After as whole seconds: delta-seconds or an HTTP date (never negative). */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v));
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const codeOf = (v: unknown): string | null => (typeof v === 'number' ? String(v) : str(v));
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

interface Fields {
  message: string | null;
  code: string | null;
  type: string | null;
  param: string | null;
  cap?: number | null;
  used?: number | null;
}

/** tRPC: `{"error":{"json":{...}}}` (superjson) or `{"error":{"message","code","data"}}`. */
function fromTrpc(err: Obj): Fields {
  const inner = isObj(err.json) ? err.json : err;
  const data = isObj(inner.data) ? inner.data : {};
  // The gateway's formatter adds its catalogue code as data.apiCode; a 402's type is that code.
  const apiCode = str(data.apiCode);
  return {
    message: str(inner.message),
    // `code` at the top is the JSON-RPC number; the readable code is apiCode, else data.code.
    code: apiCode ?? str(data.code) ?? codeOf(inner.code),
    type: str(data.type) ?? (data.httpStatus === 402 || data.code === 'PAYMENT_REQUIRED' ? apiCode : null),
    param: str(data.param) ?? str(data.path),
    cap: num(data.cap),
    used: num(data.used),
  };
}

function isTrpc(err: Obj): boolean {
  if (isObj(err.json)) return true;
  return isObj(err.data) || typeof err.code === 'number';
}

function readFields(body: unknown): Fields | null {
  // A tRPC batch answers an array of results; the first error speaks for the call.
  if (Array.isArray(body)) {
    const first = body.find((b) => isObj(b) && isObj(b.error));
    return first === undefined ? null : readFields(first);
  }
  if (!isObj(body)) return null;
  if (Array.isArray(body.errors) && body.errors.length > 0) {
    const errors = body.errors.filter(isObj);
    const first = errors[0] ?? {};
    const ext = isObj(first.extensions) ? first.extensions : {};
    const messages = errors.map((e) => str(e.message)).filter((m): m is string => m !== null);
    return {
      message: messages.length > 0 ? messages.join('; ') : null,
      code: codeOf(ext.code),
      type: str(ext.type) ?? (ext.status === 402 ? codeOf(ext.code)?.toLowerCase() ?? null : null),
      param: str(ext.param) ?? str(ext.field) ?? (Array.isArray(first.path) ? first.path.join('.') || null : null),
      cap: num(ext.cap),
      used: num(ext.used),
    };
  }
  if (isObj(body.error)) {
    const err = body.error;
    if (isTrpc(err)) return fromTrpc(err);
    return { message: str(err.message), code: codeOf(err.code), type: str(err.type), param: str(err.param), cap: num(err.cap), used: num(err.used) };
  }
  // Framework defaults such as {"statusCode":404,"error":"Not Found","message":"..."}.
  if (typeof body.message === 'string' || typeof body.error === 'string') {
    return { message: str(body.message) ?? str(body.error), code: codeOf(body.code), type: null, param: null };
  }
  return null;
}

function fallbackMessage(status: number, endpoint: string, rawBody: string): string {
  const base = `${endpoint} failed with status ${status}`;
  const text = rawBody.trim();
  if (text === '' || text.startsWith('<')) return base;
  return `${base}: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

/** Builds the OptimizerError for a failed response from any of the API's error shapes. */
export function toOptimizerError(status: number, endpoint: string, rawBody: string, headers?: HeadersLike): OptimizerError {
  let parsed: unknown = undefined;
  try {
    parsed = rawBody.trim() === '' ? undefined : JSON.parse(rawBody);
  } catch {
    parsed = undefined;
  }
  const f = readFields(parsed);
  return new OptimizerError({
    status,
    endpoint,
    message: f?.message ?? fallbackMessage(status, endpoint, rawBody),
    code: f?.code ?? null,
    type: f?.type ?? null,
    param: f?.param ?? null,
    rawBody,
    retryAfter: parseRetryAfter(header(headers, 'retry-after')),
    cap: f?.cap ?? null,
    used: f?.used ?? null,
  });
}

interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

/** A body refused before sending: status 0, code "client_validation", naming the field. */
export function clientValidationError(endpoint: string, issues: readonly IssueLike[]): OptimizerError {
  const issue = issues[0];
  if (!issue) return new OptimizerError({ status: 0, endpoint, message: 'invalid request', code: 'client_validation', type: 'invalid_request_error' });
  const path = issue.path.map(String).join('.');
  let message: string;
  let param: string | null;
  if (issue.code === 'unrecognized_keys' && issue.keys && issue.keys.length > 0) {
    const keys = issue.keys.map((k) => (path ? `${path}.${k}` : k));
    param = keys[0] ?? null;
    message = `unknown key ${keys.map((k) => `"${k}"`).join(', ')}`;
  } else {
    param = path || null;
    message = path ? `${path}: ${issue.message}` : issue.message;
  }
  return new OptimizerError({ status: 0, endpoint, message, code: 'client_validation', type: 'invalid_request_error', param });
}

/** The error for a request that got no answer: aborted by its signal, or the gateway unreachable. */
export function networkError(endpoint: string, baseURL: string, cause: unknown): OptimizerError {
  const aborted = (cause as Error | undefined)?.name === 'AbortError';
  return new OptimizerError({
    status: 0,
    endpoint,
    code: aborted ? 'aborted' : 'connection_error',
    message: aborted ? `${endpoint} was aborted` : `${endpoint} could not reach ${baseURL}: ${(cause as Error | undefined)?.message ?? String(cause)}`,
    cause,
  });
}
