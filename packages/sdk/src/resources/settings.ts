// The tenant's settings. Routing writes are checked client-side with a strict schema:
// the server stores a misspelled key without complaint, so this is what refuses it.
// A write merges: a field left out keeps its value, a nested object merges field by field,
// and null returns a field to its default. Reads answer every field, the defaults filled in.
import { routingSettingsSchema, type RoutingSettings, type RoutingSettingsWrite } from '../routing-settings.ts';
import { validate, type Transport } from '../transport.ts';

const PATH = '/v1/settings/routing';

export class RoutingSettingsResource {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  /** The effective settings: the tenant's values with the defaults filled in (a null default depends on the call). */
  get(): Promise<RoutingSettings> {
    return this.#t.json<RoutingSettings>({ method: 'GET', path: PATH, auth: 'tenant' });
  }

  /**
   * Changes only the fields given (`{ quality_floor: 0.97 }` keeps the cache and the ladders;
   * `{ cache: { exact: true } }` keeps `cache.semantic`); a field set to null returns to its
   * default. Answers the effective settings. Throws OptimizerError (status 0, code
   * client_validation) without sending when a key is unknown.
   */
  async put(settings: RoutingSettingsWrite): Promise<RoutingSettings> {
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
