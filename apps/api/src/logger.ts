// Structured logs. Secrets never reach them: any field named like a credential is
// redacted wherever it appears, at any depth we log.
import pino, { type Logger } from 'pino';
import { builtIns } from './providers/registry.ts';

// x-provider-key-<vendor> (a client's key for one vendor): each built-in vendor's form by name
const secretFields = ['authorization', 'x-provider-key', ...Object.keys(builtIns).map((v) => `x-provider-key-${v}`), 'api_key', 'apiKey', 'key', 'cookie', 'set-cookie', 'x-admin-key'];

export const redactPaths = secretFields.flatMap((f) => {
  const p = /^[a-zA-Z_$][\w$]*$/.test(f) ? f : `["${f}"]`;
  const dot = p.startsWith('[') ? p : `.${p}`;
  return [p, `*${dot}`, `*.*${dot}`, `*.*.*${dot}`, `*.*.*.*${dot}`];
});

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: '[redacted]' }, base: { svc: 'optimizer' } }, destination);
}

export type { Logger };
