// The tenant's stored vendor keys (sealed server-side; never returned).
import { providerName, putProviderKeyRequest } from '@optimizer/schema';
import { seg, validate, type Transport } from '../transport.ts';
import type { Row } from '../trpc/outputs.ts';

/** Whether a vendor key is stored (never the key). */
export type ProviderKeyStatus = Row<'settings.providerKeys'>;

const base = '/v1/settings/provider-keys';

export class ProviderKeys {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  list(): Promise<ProviderKeyStatus[]> {
    return this.#t.list<ProviderKeyStatus>({ method: 'GET', path: base, auth: 'tenant' });
  }

  async set(provider: string, key: string): Promise<{ provider: string; key_set: boolean }> {
    const endpoint = `PUT ${base}/${seg(provider)}`;
    const name = validate(providerName, provider, endpoint);
    const body = validate(putProviderKeyRequest, { key }, endpoint);
    return this.#t.json({ method: 'PUT', path: `${base}/${name}`, auth: 'tenant', body });
  }

  async remove(provider: string): Promise<void> {
    const name = validate(providerName, provider, `DELETE ${base}/${seg(provider)}`);
    await this.#t.json<unknown>({ method: 'DELETE', path: `${base}/${name}`, auth: 'tenant' });
  }
}
