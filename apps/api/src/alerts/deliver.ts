// Sends the outbox's due rows: webhooks through the tenant-directed client, providers/tenant-outbound.ts
// (the address policy checked on the socket connected to, no redirects followed: a 3xx is a failed attempt),
// signed afresh on every attempt; emails over SMTP with nodemailer. A 2xx delivers, a 410
// disables the endpoint, anything else retries later.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../logger.ts';
import type { TenantOutbound } from '../providers/tenant-outbound.ts';
import type { Outbox, OutboxRow } from './outbox.ts';
import { webhookHeaders } from './signing.ts';
import type { WebhookEndpoints } from './webhook-endpoints.ts';

/** How long a replica holds a row it is sending: past it, another replica (or this one after a restart) sends it. */
const LEASE_MS = 60_000;

export interface DelivererOptions {
  outbox: Outbox;
  endpoints: WebhookEndpoints;
  /** The tenant-directed client, under WEBHOOK_ADDRESS_POLICY. */
  client: TenantOutbound;
  logger: Logger;
  timeoutMs: number;
  smtpUrl: string | undefined;
  emailFrom: string;
}

export class Deliverer {
  readonly #o: DelivererOptions;
  readonly #mail: Transporter | null;

  constructor(o: DelivererOptions) {
    this.#o = o;
    this.#mail = o.smtpUrl ? nodemailer.createTransport(o.smtpUrl) : null;
  }

  /** One pass: sends every due row (a batch at a time); returns how many were attempted. */
  async run(): Promise<number> {
    let n = 0;
    for (;;) {
      const rows = await this.#o.outbox.claimDue(20, LEASE_MS);
      if (rows.length === 0) return n;
      await Promise.all(rows.map((r) => this.#send(r)));
      n += rows.length;
    }
  }

  async #send(row: OutboxRow): Promise<void> {
    try {
      if (row.channel === 'webhook') await this.#webhook(row);
      else await this.#email(row);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      this.#o.logger.warn({ delivery: row.id, channel: row.channel, code, attempt: row.attempts + 1 }, 'alert delivery failed; it will be retried');
      await this.#o.outbox.failed(row, null, code);
    }
  }

  async #webhook(row: OutboxRow): Promise<void> {
    const endpoint = await this.#o.endpoints.forDelivery(row.target);
    if (!endpoint) return this.#o.outbox.failed(row, null, 'endpoint_disabled_or_removed', true);
    const res = await this.#o.client.request({
      url: new URL(endpoint.url),
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'optimizer-webhooks/1', ...webhookHeaders(endpoint.secrets, row.id, row.body) },
      body: row.body,
      timeoutMs: this.#o.timeoutMs,
    }); // its body is read and dropped: a receiver's answer is not ours to keep
    const status = res.status;
    if (status >= 200 && status < 300) return this.#o.outbox.delivered(row.id, status);
    if (status === 410) {
      await this.#o.endpoints.disable(row.target, 'receiver answered 410 Gone');
      return this.#o.outbox.failed(row, status, 'gone', true);
    }
    this.#o.logger.info({ delivery: row.id, status, attempt: row.attempts + 1 }, 'webhook receiver did not accept the delivery; it will be retried');
    await this.#o.outbox.failed(row, status, status >= 300 && status < 400 ? 'redirect_not_followed' : 'status');
  }

  async #email(row: OutboxRow): Promise<void> {
    if (!this.#mail) return this.#o.outbox.failed(row, null, 'smtp_not_configured', true);
    const { subject, text } = JSON.parse(row.body) as { subject: string; text: string };
    await this.#mail.sendMail({ from: this.#o.emailFrom, to: row.target.split(','), subject, text, messageId: `<${row.id}@optimizer.alerts>` });
    await this.#o.outbox.delivered(row.id, null);
  }

  close(): void {
    this.#mail?.close();
  }
}
