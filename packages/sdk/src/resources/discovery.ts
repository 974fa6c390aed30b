// Discovery mode of a proxy agent (spec 4.6); the agent's id is its workflow's id.
import { seg, type Transport } from '../transport.ts';
import type { Output } from '../trpc/outputs.ts';

/** Discovery mode of an agent: on or off, and whether any seen step is still unsettled. */
export type DiscoveryView = Output<'discovery.progress'>;

export class Discovery {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  #path(agentId: string): string {
    return `/v1/proxy-agents/${seg(agentId)}/discovery`;
  }

  get(agentId: string): Promise<DiscoveryView> {
    return this.#t.json<DiscoveryView>({ method: 'GET', path: this.#path(agentId), auth: 'tenant' });
  }

  setEnabled(agentId: string, enabled: boolean): Promise<DiscoveryView> {
    return this.#t.json<DiscoveryView>({ method: 'PUT', path: this.#path(agentId), auth: 'tenant', body: { enabled } });
  }

  /** Settled answers, priced deltas and reachability against the tenant's current keys. */
  report(agentId: string): Promise<Record<string, unknown>> {
    return this.#t.json({ method: 'GET', path: `${this.#path(agentId)}/report`, auth: 'tenant' });
  }
}
