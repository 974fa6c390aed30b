// Standard Webhooks signing: `webhook-signature` is `v1,<base64 HMAC-SHA256>` over
// `<webhook-id>.<webhook-timestamp>.<body>` with the secret's bytes (the base64 after
// `whsec_`). While a rotated secret is still honoured, both signatures are sent, space-separated.
import { createHmac, randomBytes } from 'node:crypto';

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of one delivery attempt, signed now (a retry gets a fresh timestamp and signature). */
export function webhookHeaders(secrets: string[], id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signature(s, id, timestamp, body)).join(' '),
  };
}
