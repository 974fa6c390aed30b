// The one client for every tenant-directed call (connections, webhooks): the URL a tenant
// chose is checked on write (scheme, credentials, local names, special-purpose literals
// and, for connections, every address its name resolves to now), and again at connect
// time by the outbound module on the address actually connected to, pinned so a second
// lookup cannot swap it (DNS rebinding). Redirects are never followed: a 3xx is the answer.
// Lint keeps every other module from calling the outbound module for a tenant's target.
import { ApiError } from '../errors.ts';
import { isReachable, refusalOfUrl, type AllowList } from '../security/address-guard.ts';
import type { AddressPolicy, Outbound, ResponseHeaders, Resolver } from './outbound.ts';

export interface TenantRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface TenantResponse {
  status: number;
  headers: ResponseHeaders;
  body: string;
}

export interface TenantOutboundOptions {
  outbound: Outbound;
  policy: AddressPolicy;
  resolve: Resolver;
  allow: AllowList | null;
}

export class TenantOutbound {
  readonly #o: TenantOutboundOptions;

  constructor(o: TenantOutboundOptions) {
    this.#o = o;
  }

  /**
   * The URL if a tenant may store it; else 422 address_refused naming `param`. With `resolve`,
   * a host name is looked up now and refused if any of its addresses may not be reached.
   */
  async check(raw: string, param: string, opts: { resolve: boolean }): Promise<URL> {
    const refuse = (why: string): never => {
      throw new ApiError('address_refused', `${param}: ${why}.`, { param });
    };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return refuse('not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse(`${url.protocol} URLs are not allowed: use http:// or https://`);
    if (url.username !== '' || url.password !== '') refuse('credentials in the URL (user:password@) are not allowed: store the secret on its own');
    if (this.#o.policy === 'any') return url;
    const why = refusalOfUrl(url, this.#o.allow);
    if (why !== null) refuse(why);
    if (opts.resolve && url.hostname !== '' && !/^[\d.]+$|^\[/.test(url.hostname)) {
      const addresses = await this.#o.resolve(url.hostname).catch(() => refuse(`${url.hostname} does not resolve`));
      if (addresses.length === 0) refuse(`${url.hostname} does not resolve`);
      const blocked = addresses.find((a) => !isReachable(a, this.#o.allow));
      if (blocked !== undefined) refuse(`${url.hostname} resolves to ${blocked}, which is not a public address`);
    }
    return url;
  }

  /** One exchange, its body read whole; a refused address rejects with BlockedAddressError before any byte is sent to it. */
  async request(req: TenantRequest): Promise<TenantResponse> {
    const res = await this.#o.outbound.request({
      url: req.url,
      method: req.method,
      headers: req.headers,
      ...(req.body !== undefined ? { body: req.body } : {}),
      policy: this.#o.policy,
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  }
}
