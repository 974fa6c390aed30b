// OpenAI's error envelope: {"error": {"message", "type", "param", "code"}}.

export interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface ApiError {
  status: number;
  body: ErrorEnvelope;
  headers?: Record<string, string>;
}

export function apiError(
  status: number,
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
  headers?: Record<string, string>,
): ApiError {
  return { status, body: { error: { message, type, param, code } }, ...(headers ? { headers } : {}) };
}

export function invalidRequest(message: string, param: string | null = null, code: string | null = null): ApiError {
  return apiError(400, message, 'invalid_request_error', param, code);
}

export const INVALID_JSON = invalidRequest(
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
);

export function invalidUrl(method: string, path: string): ApiError {
  return apiError(404, `Invalid URL (${method} ${path})`, 'invalid_request_error');
}

export function authError(authorization: string | undefined, apiKey: string): ApiError | null {
  if (authorization === `Bearer ${apiKey}`) return null;
  const given = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : '';
  if (!given) {
    return apiError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      'invalid_request_error',
    );
  }
  const masked = given.length > 8 ? `${given.slice(0, 3)}***${given.slice(-4)}` : '***';
  return apiError(
    401,
    `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    'invalid_request_error',
    null,
    'invalid_api_key',
  );
}
