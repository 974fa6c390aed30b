// Platform-admin routes; every call sends the adminKey client option as the bearer. Bodies
// are checked with the schemas the server parses them with (@optimizer/schema).
import { adminCreditRequest, modelProfileSchema, providerNameSchema, providerWriteSchema, type AdminCreditRequest, type ModelProfile } from '@optimizer/schema';
import type { z } from 'zod';
import { seg, validate, type Transport } from '../transport.ts';

export interface ProviderConfig {
  name: string;
  base_url: string;
  enabled: boolean;
  key_set?: boolean;
  [field: string]: unknown;
}

/** A vendor to register: its OpenAI-compatible base URL (ending in its version, e.g. /v1), its key, and whether it serves (default true). */
export type ProviderConfigInput = z.input<typeof providerWriteSchema>;

export interface ProviderTestResult {
  ok: boolean;
  [field: string]: unknown;
}

/** Support credit for an account (not a payment): the amount in USD and why. */
export type AccountCredit = AdminCreditRequest;

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
    validate(providerNameSchema, name, `PUT ${path}`);
    // checked here, sent as given: the server fills the defaults
    validate(providerWriteSchema, config, `PUT ${path}`);
    return this.#t.json<ProviderConfig>({ method: 'PUT', path, auth: 'admin', body: config });
  }

  async remove(name: string): Promise<void> {
    await this.#t.json<unknown>({ method: 'DELETE', path: `/v1/admin/providers/${seg(name)}`, auth: 'admin' });
  }

  test(name: string): Promise<ProviderTestResult> {
    return this.#t.json<ProviderTestResult>({ method: 'POST', path: `/v1/admin/providers/${seg(name)}/test`, auth: 'admin' });
  }
}

export class AdminAccounts {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  /** Credits an account's wallet from the platform's grants book (support credit, not a payment). */
  async credit(accountId: string, credit: AccountCredit): Promise<void> {
    const path = `/v1/admin/accounts/${seg(accountId)}/credit`;
    const body = validate(adminCreditRequest, credit, `POST ${path}`);
    await this.#t.json<unknown>({ method: 'POST', path, auth: 'admin', body });
  }
}

export class Admin {
  readonly catalog: AdminCatalog;
  readonly providers: AdminProviders;
  readonly accounts: AdminAccounts;

  constructor(t: Transport) {
    this.catalog = new AdminCatalog(t);
    this.providers = new AdminProviders(t);
    this.accounts = new AdminAccounts(t);
  }
}
