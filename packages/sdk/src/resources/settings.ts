// The tenant's settings. Routing writes are checked client-side with a strict schema:
// the server stores a misspelled key without complaint, so this is what refuses it.
import { routingSettingsSchema, type RoutingSettings } from '../routing-settings.ts';
import { validate, type Transport } from '../transport.ts';

const PATH = '/v1/settings/routing';

export class RoutingSettingsResource {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  get(): Promise<RoutingSettings> {
    return this.#t.json<RoutingSettings>({ method: 'GET', path: PATH, auth: 'tenant' });
  }

  /** Throws OptimizerError (status 0, code client_validation) without sending when a key is unknown. */
  async put(settings: RoutingSettings): Promise<RoutingSettings> {
    const body = validate(routingSettingsSchema, settings, `PUT ${PATH}`);
    return this.#t.json<RoutingSettings>({ method: 'PUT', path: PATH, auth: 'tenant', body });
  }
}

export class Settings {
  readonly routing: RoutingSettingsResource;

  constructor(t: Transport) {
    this.routing = new RoutingSettingsResource(t);
  }
}
