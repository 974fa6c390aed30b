// A tenant's webhook endpoints: the URL, and the signing secret sealed at rest (shown once,
// when created or rotated). A rotated secret keeps signing beside the new one for a day, so
// a receiver can switch over without missing a delivery. A 410 from the receiver disables it.
import type { Database } from '../db/database.ts';
import type { Envelope, SealedSecret } from '../security/envelope.ts';
import { newId } from '../security/secrets.ts';
import { ApiError } from '../errors.ts';
import { newWebhookSecret } from './signing.ts';

const ROTATION_OVERLAP = "interval '24 hours'";

export interface WebhookEndpointView {
  id: string;
  url: string;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
}

interface Row {
  id: string;
  account_id: string;
  url: string;
  secret: SealedSecret;
  previous_secret: SealedSecret | null;
  previous_live: boolean;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date | string;
}

const view = (r: Row): WebhookEndpointView => ({ id: r.id, url: r.url, enabled: r.enabled, disabled_reason: r.disabled_reason, created_at: new Date(r.created_at).toISOString() });

export class WebhookEndpoints {
  readonly #db: Database;
  readonly #envelope: Envelope;

  constructor(db: Database, envelope: Envelope) {
    this.#db = db;
    this.#envelope = envelope;
  }

  #conn() {
    return this.#db.em().getConnection();
  }

  async #rows(where: string, params: unknown[]): Promise<Row[]> {
    return (await this.#conn().execute(
      `select id, account_id, url, secret, previous_secret, coalesce(previous_until > now(), false) as previous_live, enabled, disabled_reason, created_at from webhook_endpoints where ${where} order by created_at, id`,
      params,
    )) as Row[];
  }

  /** Creates an endpoint; the secret is in this answer only. */
  async create(accountId: string, url: string): Promise<WebhookEndpointView & { secret: string }> {
    const id = newId('whep');
    const secret = newWebhookSecret();
    const sealed = this.#envelope.encrypt(secret, { tenantId: accountId, rowId: id });
    await this.#conn().execute('insert into webhook_endpoints (id, account_id, url, secret) values (?, ?, ?, ?)', [id, accountId, url, JSON.stringify(sealed)]);
    const [row] = await this.#rows('id = ?', [id]);
    return { ...view(row!), secret };
  }

  async list(accountId: string): Promise<WebhookEndpointView[]> {
    return (await this.#rows('account_id = ?', [accountId])).map(view);
  }

  async remove(accountId: string, id: string): Promise<void> {
    const rows = (await this.#conn().execute('delete from webhook_endpoints where id = ? and account_id = ? returning id', [id, accountId])) as unknown[];
    if (rows.length === 0) throw new ApiError('not_found', `No webhook endpoint ${id}.`);
  }

  /** A new secret (shown once); the old one still signs beside it for a day. Re-enables a disabled endpoint. */
  async rotate(accountId: string, id: string): Promise<WebhookEndpointView & { secret: string }> {
    const secret = newWebhookSecret();
    const sealed = this.#envelope.encrypt(secret, { tenantId: accountId, rowId: id });
    const rows = (await this.#conn().execute(
      `update webhook_endpoints set previous_secret = secret, previous_until = now() + ${ROTATION_OVERLAP}, secret = ?, enabled = true, disabled_reason = null
        where id = ? and account_id = ? returning id`,
      [JSON.stringify(sealed), id, accountId],
    )) as unknown[];
    if (rows.length === 0) throw new ApiError('not_found', `No webhook endpoint ${id}.`);
    const [row] = await this.#rows('id = ?', [id]);
    return { ...view(row!), secret };
  }

  /** The endpoint's URL and the secrets that sign now (newest first), or null when it is gone or disabled. */
  async forDelivery(id: string): Promise<{ url: string; secrets: string[] } | null> {
    const [r] = await this.#rows('id = ? and enabled', [id]);
    if (!r) return null;
    const binding = { tenantId: r.account_id, rowId: r.id };
    const secrets = [this.#envelope.decrypt(r.secret, binding)];
    if (r.previous_secret && r.previous_live) secrets.push(this.#envelope.decrypt(r.previous_secret, binding));
    return { url: r.url, secrets };
  }

  /** The tenant's enabled endpoint ids (where an alert is queued). */
  async enabledIds(accountId: string): Promise<string[]> {
    const rows = (await this.#conn().execute('select id from webhook_endpoints where account_id = ? and enabled', [accountId])) as { id: string }[];
    return rows.map((r) => r.id);
  }

  async disable(id: string, reason: string): Promise<void> {
    await this.#conn().execute('update webhook_endpoints set enabled = false, disabled_reason = ? where id = ?', [reason, id]);
  }
}
