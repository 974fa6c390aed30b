// Bedrock's error shape: `{"message": "..."}` with the type in `x-amzn-ErrorType`
// (`ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/`).

export interface AwsError {
  status: number;
  type: string;
  message: string;
  headers?: Record<string, string>;
}

const NAMESPACE: Record<string, string> = {
  UnrecognizedClientException: 'http://internal.amazon.com/coral/com.amazon.coral.service/',
  InvalidSignatureException: 'http://internal.amazon.com/coral/com.amazon.coral.service/',
  IncompleteSignatureException: 'http://internal.amazon.com/coral/com.amazon.coral.service/',
  MissingAuthenticationTokenException: 'http://internal.amazon.com/coral/com.amazon.coral.service/',
  SerializationException: 'http://internal.amazon.com/coral/com.amazon.coral.service/',
  UnknownOperationException: 'http://internal.amazon.com/coral/com.amazon.coral.service/',
};

export function awsError(status: number, type: string, message: string, headers?: Record<string, string>): AwsError {
  return { status, type, message, ...(headers ? { headers } : {}) };
}

export function errorHeaders(e: AwsError): Record<string, string> {
  return { 'x-amzn-errortype': `${e.type}:${NAMESPACE[e.type] ?? 'http://internal.amazon.com/coral/com.amazon.bedrock/'}`, ...e.headers };
}

export const validation = (message: string): AwsError => awsError(400, 'ValidationException', message);

/** Smithy's constraint message: `1 validation error detected: Value 'x' at 'a.b' failed to satisfy constraint: Member must …`. */
export function constraint(value: unknown, path: string, rule: string): AwsError {
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  return validation(`1 validation error detected: Value '${shown}' at '${path}' failed to satisfy constraint: Member must ${rule}`);
}

export const extraneous = (key: string): AwsError =>
  validation(`Malformed input request: extraneous key [${key}] is not permitted, please reformat your input and try again.`);

export const SERIALIZATION = awsError(400, 'SerializationException', 'Unable to parse the request body as JSON.');

export const SERVER_ERROR = awsError(500, 'InternalServerException', 'The system encountered an unexpected error during processing. Try your request again.');

export const UNAVAILABLE = awsError(503, 'ServiceUnavailableException', 'Bedrock is unable to process your request.');

export function throttled(retryAfter: string | undefined): AwsError {
  return awsError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.', retryAfter ? { 'retry-after': retryAfter } : undefined);
}

export function unknownOperation(method: string, path: string): AwsError {
  return awsError(404, 'UnknownOperationException', `No operation matches ${method} ${path}.`);
}
