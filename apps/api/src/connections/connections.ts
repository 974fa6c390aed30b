// A tenant's connections (spec 4.5): a base URL and a secret sealed at rest like provider
// keys (bound to its tenant and row), never returned. The URL is checked on write by the
// tenant-directed client (a name is resolved and every address checked), and again when a
// call is made, on the address actually connected to.
import type { Database } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { BlockedAddressError } from '../providers/outbound.ts';
import type { TenantOutbound, TenantResponse } from '../providers/tenant-outbound.ts';
import type { Envelope, SealedSecret } from '../security/envelope.ts';
import { newId } from '../security/secrets.ts';

export interface ConnectionView {
  name: string;
  base_url: string;
  secret_set: boolean;
  created_at: string;
  updated_at: string;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  base_url: string;
  secret: SealedSecret | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const view = (r: Row): ConnectionView => ({
  name: r.name,
  base_url: r.base_url,
  secret_set: r.secret !== null,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
});

/** The largest answer kept from a connection (the rest is cut). */
const MAX_KEPT_BODY = 64 * 1024;

export interface ConnectionCall {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export class Connections {
  readonly #db: Database;
  readonly #envelope: Envelope;
  readonly #client: TenantOutbound;
  readonly #timeoutMs: number;

  constructor(o: { db: Database; envelope: Envelope; client: TenantOutbound; timeoutMs: number }) {
    this.#db = o.db;
    this.#envelope = o.envelope;
    this.#client = o.client;
    this.#timeoutMs = o.timeoutMs;
  }

  #sql(q: string, params: unknown[] = []) {
    return this.#db.em().getConnection().execute(q, params) as Promise<Row[]>;
  }

  async list(accountId: string): Promise<ConnectionView[]> {
    return (await this.#sql('select * from connections where account_id = ? order by name', [accountId])).map(view);
  }

  async #row(accountId: string, name: string): Promise<Row> {
    const [r] = await this.#sql('select * from connections where account_id = ? and name = ?', [accountId, name]);
    if (!r) throw new ApiError('not_found', `No connection ${name}.`);
    return r;
  }

  async get(accountId: string, name: string): Promise<ConnectionView> {
    return view(await this.#row(accountId, name));
  }

  /** Creates or replaces a connection; a secret left out keeps the stored one. */
  async put(accountId: string, name: string, body: { base_url: string; secret?: string | undefined }): Promise<{ view: ConnectionView; created: boolean }> {
    const url = await this.#client.check(body.base_url, 'base_url', { resolve: true });
    if (url.search !== '' || url.hash !== '') throw new ApiError('validation_failed', 'base_url: no query string or fragment (paths are appended to it).', { param: 'base_url' });
    const [existing] = await this.#sql('select * from connections where account_id = ? and name = ?', [accountId, name]);
    const id = existing?.id ?? newId('conn');
    const sealed = body.secret !== undefined ? JSON.stringify(this.#envelope.encrypt(body.secret, { tenantId: accountId, rowId: id })) : null;
    const [row] = await this.#sql(
      `insert into connections (id, account_id, name, base_url, secret) values (?, ?, ?, ?, ?)
        on conflict (account_id, name) do update set base_url = excluded.base_url, secret = coalesce(excluded.secret, connections.secret), updated_at = now()
        returning *`,
      [id, accountId, name, url.href, sealed],
    );
    return { view: view(row!), created: !existing };
  }

  async remove(accountId: string, name: string): Promise<void> {
    const rows = await this.#sql('delete from connections where account_id = ? and name = ? returning id', [accountId, name]);
    if (rows.length === 0) throw new ApiError('not_found', `No connection ${name}.`);
  }

  /**
   * One call to a connection: its path appended to the base URL (never leaving its origin), the
   * secret as a bearer token. 422 address_refused when the address may not be reached (nothing is
   * sent to it); 502 connection_failed when it cannot be reached. A 3xx is returned, not followed.
   */
  async call(accountId: string, name: string, call: ConnectionCall): Promise<TenantResponse> {
    const r = await this.#row(accountId, name);
    const base = new URL(r.base_url);
    const target = new URL(base.pathname.replace(/\/$/, '') + call.path, base);
    if (target.origin !== base.origin) throw new ApiError('validation_failed', 'path: a call stays on its connection\'s host.', { param: 'path' });
    const headers: Record<string, string> = { 'user-agent': 'optimizer-managed-agents/1', accept: 'application/json' };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (r.secret) headers.authorization = `Bearer ${this.#envelope.decrypt(r.secret, { tenantId: accountId, rowId: r.id })}`;
    try {
      const res = await this.#client.request({ url: target, method: call.method, headers, ...(call.body !== undefined ? { body: call.body } : {}), timeoutMs: this.#timeoutMs });
      return { ...res, body: res.body.slice(0, MAX_KEPT_BODY) };
    } catch (err) {
      if (err instanceof BlockedAddressError) throw new ApiError('address_refused', `connection ${name}: ${err.message}.`, { cause: err });
      if (err instanceof ApiError) throw err;
      throw new ApiError('connection_failed', `connection ${name} could not be reached (${(err as NodeJS.ErrnoException).code ?? (err as Error).name}).`, { cause: err });
    }
  }
}
