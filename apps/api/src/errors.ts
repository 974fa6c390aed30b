// One catalogue of every failure the API can answer with. Each entry has a stable
// code, an HTTP status, the OpenAI-style error `type`, a log level and whether a
// client may retry. Handlers throw `new ApiError(code, message)`; nothing branches
// on message text.

type LogLevel = 'debug' | 'info' | 'warn' | 'error';

interface CatalogueEntry {
  status: number;
  type: string;
  log: LogLevel;
  retryable: boolean;
  message: string;
}

export const errorCatalogue = {
  invalid_json: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The request body is not valid JSON.' },
  invalid_request: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The request is invalid.' },
  invalid_http: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The request is not valid HTTP/1.1.' },
  request_timeout: { status: 408, type: 'invalid_request_error', log: 'info', retryable: true, message: 'The request did not arrive in time.' },
  headers_too_large: { status: 431, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The request headers are too large.' },
  json_too_deep: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The request body nests deeper than 128 levels.' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error', log: 'info', retryable: false, message: 'Send the body as application/json.' },
  missing_api_key: { status: 401, type: 'authentication_error', log: 'info', retryable: false, message: 'Missing bearer key: send Authorization: Bearer sk-opt-...' },
  invalid_api_key: { status: 401, type: 'authentication_error', log: 'info', retryable: false, message: 'The bearer key is not valid or was revoked.' },
  invalid_admin_key: { status: 401, type: 'authentication_error', log: 'warn', retryable: false, message: 'Admin routes need Authorization: Bearer <ADMIN_KEY>.' },
  invalid_login: { status: 401, type: 'authentication_error', log: 'info', retryable: false, message: 'The email and API key do not match an account.' },
  csrf_rejected: { status: 403, type: 'permission_error', log: 'warn', retryable: false, message: 'A cookie-authenticated write must come from the gateway\'s own origin (Sec-Fetch-Site: same-origin or a matching Origin).' },
  forbidden: { status: 403, type: 'permission_error', log: 'info', retryable: false, message: 'This key may not do that.' },
  not_found: { status: 404, type: 'not_found_error', log: 'info', retryable: false, message: 'Not found.' },
  subscription_required: { status: 402, type: 'subscription_required', log: 'info', retryable: false, message: 'Managed Production needs an active subscription for this workflow.' },
  payment_method_required: { status: 402, type: 'payment_method_required', log: 'info', retryable: false, message: 'No card is saved for this account: pay one top-up (POST /v1/billing/topup); its checkout keeps the card for the subscription.' },
  payment_declined: { status: 402, type: 'payment_declined', log: 'info', retryable: false, message: 'The card on file was declined for the first payment; nothing was started.' },
  wallet_empty: { status: 402, type: 'wallet_empty', log: 'info', retryable: false, message: 'The wallet cannot cover this call: top up (POST /v1/billing/topup) or store provider keys for the vendor.' },
  dev_allowance_exhausted: { status: 402, type: 'dev_allowance_exhausted', log: 'info', retryable: false, message: 'The dev allowance is used up: top up the wallet (POST /v1/billing/topup) to go on.' },
  run_cap_reached: { status: 402, type: 'run_cap_reached', log: 'info', retryable: false, message: 'This month\'s managed-run cap is spent: runs start again next month (the body carries cap and used).' },
  spend_cap_reached: { status: 402, type: 'spend_cap_reached', log: 'info', retryable: false, message: 'The monthly spend cap is reached: raise spend_cap_usd at PUT /v1/settings/alerts.' },
  payment_unavailable: { status: 503, type: 'server_error', log: 'warn', retryable: true, message: 'Payments are not configured on this gateway (STRIPE_SECRET_KEY).' },
  invalid_signature: { status: 400, type: 'invalid_request_error', log: 'warn', retryable: false, message: 'The webhook signature does not verify.' },
  conflict: { status: 409, type: 'conflict_error', log: 'info', retryable: false, message: 'The request conflicts with the current state.' },
  production_key_required: { status: 409, type: 'conflict_error', log: 'info', retryable: false, message: "A workflow in production runs on the tenant's own provider keys, never the platform's: store a key for the vendor (PUT /v1/settings/provider-keys/:provider) or send x-provider-key-<vendor>." },
  idempotency_in_flight: { status: 409, type: 'conflict_error', log: 'info', retryable: true, message: 'A request with this Idempotency-Key is still in progress; retry after it finishes.' },
  idempotency_mismatch: { status: 422, type: 'invalid_request_error', log: 'info', retryable: false, message: 'This Idempotency-Key was used with a different request body.' },
  prompt_injection_blocked: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The guard refused the request: its user or tool content matches a prompt-injection pattern (the tenant\'s guard settings block it; see the call\'s guardrail_findings).' },
  payload_too_large: { status: 413, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The request body is too large.' },
  validation_failed: { status: 422, type: 'invalid_request_error', log: 'info', retryable: false, message: 'A field is invalid.' },
  rate_limited: { status: 429, type: 'rate_limit_error', log: 'info', retryable: true, message: 'Too many requests.' },
  upstream_rate_limited: { status: 429, type: 'rate_limit_error', log: 'warn', retryable: true, message: 'The model provider is rate limiting this key.' },
  upstream_error: { status: 502, type: 'upstream_error', log: 'warn', retryable: true, message: 'The model provider failed.' },
  upstream_invalid: { status: 502, type: 'upstream_error', log: 'warn', retryable: true, message: 'The model provider answered with a body that is not its API\'s shape; it was not passed on.' },
  upstream_timeout: { status: 504, type: 'upstream_timeout', log: 'warn', retryable: true, message: 'The model provider did not answer in time.' },
  upstream_auth: { status: 401, type: 'authentication_error', log: 'info', retryable: false, message: 'The model provider refused the provider key.' },
  upstream_not_found: { status: 404, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The model provider does not know that model or route.' },
  address_refused: { status: 422, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The address is refused: connections and webhooks reach public http(s) hosts only (not localhost, .local, loopback, private or other special-purpose ranges, and no user:password@ in the URL).' },
  connection_failed: { status: 502, type: 'upstream_error', log: 'info', retryable: false, message: 'The connection could not be reached or did not answer in time.' },
  provider_unavailable: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: 'That provider cannot be reached through this gateway.' },
  upstream_bad_request: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The model provider refused the request.' },
  no_provider_key: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: 'No provider key: send x-provider-key, store one under /v1/settings/provider-keys, or configure the platform key.' },
  embeddings_unsupported: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: 'This provider offers no embeddings through the gateway.' },
  not_embedding_model: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: 'The model does not make embeddings.' },
  unknown_model: { status: 400, type: 'invalid_request_error', log: 'info', retryable: false, message: "The model is not in the catalog, and on the platform's keys a call must be priced: name a catalog model (the error's `suggestions` lists the closest), send your own key for the vendor, or ask the admin for an alias or an unknown-model price." },
  unavailable: { status: 503, type: 'server_error', log: 'error', retryable: true, message: 'The service is not ready or a service it depends on is down; retry shortly.' },
  internal: { status: 500, type: 'server_error', log: 'error', retryable: true, message: 'Internal error.' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof errorCatalogue;

export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | null;
  readonly headers: Record<string, string>;
  /** Extra fields that ride on the envelope (e.g. a vendor's raw error). */
  readonly extra: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message?: string,
    opts: { param?: string | null; headers?: Record<string, string>; extra?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message ?? errorCatalogue[code].message, { cause: opts.cause });
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.param = opts.param ?? null;
    this.headers = opts.headers ?? {};
    this.extra = opts.extra ?? {};
  }

  get entry(): CatalogueEntry {
    return errorCatalogue[this.code];
  }

  toBody(): { error: Record<string, unknown> } {
    return { error: { message: this.message, type: this.entry.type, code: this.code, param: this.param, ...this.extra } };
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
