// Platform-admin routes; every call sends the adminKey client option as the bearer.
import { modelProfileSchema, providerName, type ModelProfile } from '@optimizer/schema';
import { z } from 'zod';
import { seg, validate, type Transport } from '../transport.ts';

export interface ProviderConfig {
  name: string;
  base_url: string;
  enabled: boolean;
  key_set?: boolean;
  [field: string]: unknown;
}

export interface ProviderConfigInput {
  base_url: string;
  api_key?: string;
  enabled: boolean;
}

export interface ProviderTestResult {
  ok: boolean;
  [field: string]: unknown;
}

const providerConfigInput = z
  .object({
    base_url: z.url({ protocol: /^https?$/, error: 'base_url must be an http(s) URL' }),
    api_key: z.string().min(1).max(4096).optional(),
    enabled: z.boolean(),
  })
  .strict();

export class AdminCatalog {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  list(): Promise<ModelProfile[]> {
    return this.#t.list<ModelProfile>({ method: 'GET', path: '/v1/admin/catalog', auth: 'admin' });
  }

  /** Adds or replaces a model; `profile.model` may be left out and must match `model` if given. */
  async put(model: string, profile: Omit<ModelProfile, 'model'> & { model?: string }): Promise<ModelProfile> {
    const path = `/v1/admin/catalog/${seg(model)}`;
    const body = validate(modelProfileSchema.refine((p) => p.model === model, { path: ['model'], error: `profile.model must be "${model}"` }), { ...profile, model: profile.model ?? model }, `PUT ${path}`);
    return this.#t.json<ModelProfile>({ method: 'PUT', path, auth: 'admin', body });
  }

  async remove(model: string): Promise<void> {
    await this.#t.json<unknown>({ method: 'DELETE', path: `/v1/admin/catalog/${seg(model)}`, auth: 'admin' });
  }

  setDisabled(model: string, disabled: boolean): Promise<ModelProfile> {
    return this.#t.json<ModelProfile>({ method: 'POST', path: `/v1/admin/catalog/${seg(model)}/disabled`, auth: 'admin', body: { disabled } });
  }
}

export class AdminProviders {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  list(): Promise<ProviderConfig[]> {
    return this.#t.list<ProviderConfig>({ method: 'GET', path: '/v1/admin/providers', auth: 'admin' });
  }

  async put(name: string, config: ProviderConfigInput): Promise<ProviderConfig> {
    const path = `/v1/admin/providers/${seg(name)}`;
    validate(providerName, name, `PUT ${path}`);
    const body = validate(providerConfigInput, config, `PUT ${path}`);
    return this.#t.json<ProviderConfig>({ method: 'PUT', path, auth: 'admin', body });
  }

  async remove(name: string): Promise<void> {
    await this.#t.json<unknown>({ method: 'DELETE', path: `/v1/admin/providers/${seg(name)}`, auth: 'admin' });
  }

  test(name: string): Promise<ProviderTestResult> {
    return this.#t.json<ProviderTestResult>({ method: 'POST', path: `/v1/admin/providers/${seg(name)}/test`, auth: 'admin' });
  }
}

export class Admin {
  readonly catalog: AdminCatalog;
  readonly providers: AdminProviders;

  constructor(t: Transport) {
    this.catalog = new AdminCatalog(t);
    this.providers = new AdminProviders(t);
  }
}
