// The tenant's settings: routing, capture, the guard, rate limits and alerts. Routing writes are checked client-side with a strict schema:
// the server stores a misspelled key without complaint, so this is what refuses it.
// A write merges: a field left out keeps its value, a nested object merges field by field,
// and null returns a field to its default. Reads answer every field, the defaults filled in.
import { routingSettingsSchema, type RoutingSettings, type RoutingSettingsWrite } from '../routing-settings.ts';
import { callCapability, type CallOptions, type CapabilityArgs, type CapabilityInput, type CapabilityOutput } from '../rest/route.ts';
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

/** A settings topic read and merged as a whole: `get()` the effective settings, `put(patch)` merges (null returns a field to its default). */
class Topic<G extends 'settings.capture' | 'settings.guard' | 'settings.limits' | 'settings.alerts', P extends 'settings.setCapture' | 'settings.setGuard' | 'settings.setLimits' | 'settings.setAlerts'> {
  readonly #t: Transport;
  readonly #get: G;
  readonly #put: P;

  constructor(t: Transport, get: G, put: P) {
    this.#t = t;
    this.#get = get;
    this.#put = put;
  }

  /** The effective settings, the defaults filled in. */
  get(opts?: CallOptions): Promise<CapabilityOutput<G>> {
    return callCapability(this.#t, this.#get, ...([undefined, opts] as unknown as CapabilityArgs<G>));
  }

  /** Merges `patch` into the stored settings (a field left out keeps its value; null returns it to its default); answers the effective settings. */
  put(patch: CapabilityInput<P>, opts?: CallOptions): Promise<CapabilityOutput<P>> {
    return callCapability(this.#t, this.#put, ...([patch, opts] as unknown as CapabilityArgs<P>));
  }
}

export type CaptureSettings = CapabilityOutput<'settings.capture'>;
export type GuardSettings = CapabilityOutput<'settings.guard'>;
export type RateLimits = CapabilityOutput<'settings.limits'>;
export type AlertSettings = CapabilityOutput<'settings.alerts'>;
/** A webhook endpoint with its signing secret, shown in this answer only. */
export type WebhookEndpointSecret = CapabilityOutput<'settings.createWebhook'>;

/** Alert settings (email, spend cap, thresholds, events) and their webhook endpoints. */
export class AlertsResource extends Topic<'settings.alerts', 'settings.setAlerts'> {
  readonly #t: Transport;

  constructor(t: Transport) {
    super(t, 'settings.alerts', 'settings.setAlerts');
    this.#t = t;
  }

  /** Adds a webhook endpoint; its signing secret is in this answer only. */
  createWebhook(input: CapabilityInput<'settings.createWebhook'>, opts?: CallOptions): Promise<WebhookEndpointSecret> {
    return callCapability(this.#t, 'settings.createWebhook', input, opts);
  }

  /** A new signing secret for the endpoint (the old one stops signing). */
  rotateWebhook(id: string, opts?: CallOptions): Promise<CapabilityOutput<'settings.rotateWebhook'>> {
    return callCapability(this.#t, 'settings.rotateWebhook', { id }, opts);
  }

  async removeWebhook(id: string, opts?: CallOptions): Promise<void> {
    await callCapability(this.#t, 'settings.removeWebhook', { id }, opts);
  }
}

export class Settings {
  readonly routing: RoutingSettingsResource;
  /** Content capture and retention: none, metadata or full content; PII masking; retention days. */
  readonly capture: Topic<'settings.capture', 'settings.setCapture'>;
  /** The guard: PII redaction and the injection policy. */
  readonly guard: Topic<'settings.guard', 'settings.setGuard'>;
  /** Rate limits, the tenant's and its keys' (within the platform's ceiling). */
  readonly limits: Topic<'settings.limits', 'settings.setLimits'>;
  readonly alerts: AlertsResource;

  constructor(t: Transport) {
    this.routing = new RoutingSettingsResource(t);
    this.capture = new Topic(t, 'settings.capture', 'settings.setCapture');
    this.guard = new Topic(t, 'settings.guard', 'settings.setGuard');
    this.limits = new Topic(t, 'settings.limits', 'settings.setLimits');
    this.alerts = new AlertsResource(t);
  }
}
