// Structured logs. Secrets never reach them: any field named like a credential is
// redacted wherever it appears, at any depth we log.
import pino, { type Logger } from 'pino';
import { BUILT_IN_VENDORS } from './wire/vendors.ts';

// x-provider-key-<vendor> (a client's key for one vendor): each built-in vendor's form by name
const secretFields = ['authorization', 'x-provider-key', ...BUILT_IN_VENDORS.map((v) => `x-provider-key-${v}`), 'api_key', 'apiKey', 'key', 'cookie', 'set-cookie', 'x-admin-key'];

export const redactPaths = secretFields.flatMap((f) => {
  const p = /^[a-zA-Z_$][\w$]*$/.test(f) ? f : `["${f}"]`;
  const dot = p.startsWith('[') ? p : `.${p}`;
  return [p, `*${dot}`, `*.*${dot}`, `*.*.*${dot}`, `*.*.*.*${dot}`];
});

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: '[redacted]' }, base: { svc: 'optimizer' } }, destination);
}

export type { Logger };
