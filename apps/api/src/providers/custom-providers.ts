// Providers the platform admin registers at runtime: a base URL (with the vendor's
// version suffix), a wire format and a key sealed at rest. Loaded into the provider
// registry at boot and on every replica when a change notice arrives, so a write
// takes effect on the next request without a restart.
import type { ProviderWrite } from '@optimizer/schema';
import type { Database } from '../db/database.ts';
import { CustomProvider } from '../db/entities.ts';
import { ApiError } from '../errors.ts';
import type { HotStore } from '../hot/store.ts';
import { NewestRead } from '../hot/newest-read.ts';
import type { Envelope, SealedSecret } from '../security/envelope.ts';
import type { ProviderRegistry } from './registry.ts';
import type { Wire } from './types.ts';

const CHANGED_CHANNEL = 'providers:changed';
/** Sealed provider keys of the platform are bound to this pseudo-tenant. */
const PLATFORM = 'platform';

export interface ProviderView {
  name: string;
  base_url: string;
  wire: Wire;
  enabled: boolean;
  key_set: boolean;
  built_in: boolean;
}

/** A base URL as it may be shown: a row stored before credentials were refused shows none. */
function withoutCredentials(href: string): string {
  if (!URL.canParse(href)) return href;
  const u = new URL(href);
  if (u.username === '' && u.password === '') return href;
  u.username = '';
  u.password = '';
  return u.href;
}

export class CustomProviders {
  readonly #db: Database;
  readonly #hot: HotStore;
  readonly #envelope: Envelope;
  readonly #registry: ProviderRegistry;
  readonly #policy: 'any' | 'public-only';
  #rows: CustomProvider[] = [];
  /** Overlapping reloads: an older read never replaces a newer one. */
  readonly #reads = new NewestRead();

  constructor(db: Database, hot: HotStore, envelope: Envelope, registry: ProviderRegistry, policy: 'any' | 'public-only' = 'any') {
    this.#policy = policy;
    this.#db = db;
    this.#hot = hot;
    this.#envelope = envelope;
    this.#registry = registry;
  }

  async start(): Promise<void> {
    await this.reload();
    await this.#hot.subscribe(CHANGED_CHANNEL, () => this.reload());
  }

  async reload(): Promise<void> {
    const rows = await this.#reads.read(() => this.#db.em().find(CustomProvider, {}, { orderBy: { name: 'asc' } }));
    if (rows === undefined) return; // a reload begun later is in memory already
    this.#rows = rows;
    this.#registry.setCustom(
      this.#rows
        .filter((r) => r.enabled)
        .map((r) => ({
          name: r.name,
          wire: r.wire as Wire,
          baseUrl: r.baseUrl.replace(/\/+$/, ''),
          addressPolicy: this.#policy,
          ...(r.sealedKey ? { platformKey: this.#envelope.decrypt(r.sealedKey as unknown as SealedSecret, { tenantId: PLATFORM, rowId: r.name }) } : {}),
        })),
    );
  }

  list(): ProviderView[] {
    const builtIn = this.#registry.builtIn().map((p) => ({ name: p.name, base_url: p.baseUrl, wire: p.wire, enabled: true, key_set: p.platformKey !== undefined, built_in: true }));
    const custom = this.#rows.map((r) => ({ name: r.name, base_url: withoutCredentials(r.baseUrl), wire: r.wire as Wire, enabled: r.enabled, key_set: r.sealedKey !== null, built_in: false }));
    return [...builtIn, ...custom];
  }

  async put(name: string, w: ProviderWrite): Promise<ProviderView> {
    if (this.#registry.isBuiltIn(name)) {
      throw new ApiError('conflict', `${name} is a built-in provider; set its base URL and key through the environment.`, { param: 'name' });
    }
    const em = this.#db.em();
    const existing = await em.findOne(CustomProvider, { name });
    const sealedKey = w.api_key ? (this.#envelope.encrypt(w.api_key, { tenantId: PLATFORM, rowId: name }) as unknown as Record<string, unknown>) : (existing?.sealedKey ?? null);
    if (existing) Object.assign(existing, { baseUrl: w.base_url, wire: w.wire, enabled: w.enabled, sealedKey });
    else em.create(CustomProvider, { name, baseUrl: w.base_url, wire: w.wire, enabled: w.enabled, sealedKey });
    await em.flush();
    await this.#changed();
    return this.list().find((p) => p.name === name)!;
  }

  async remove(name: string): Promise<void> {
    if (this.#registry.isBuiltIn(name)) throw new ApiError('conflict', `${name} is a built-in provider and cannot be removed.`, { param: 'name' });
    const n = await this.#db.em().nativeDelete(CustomProvider, { name });
    if (n === 0) throw new ApiError('not_found', `No provider ${name}.`);
    await this.#changed();
  }

  async #changed(): Promise<void> {
    await this.reload();
    await this.#hot.publish(CHANGED_CHANNEL, String(Date.now()));
  }
}
