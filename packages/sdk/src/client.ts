// The gateway client: completions with typed `optimizer` annotations, the run helper,
// outcomes, and the control plane. Built on the global fetch (or one you pass).
import { signupRequest, type SignupRequest } from '@optimizer/schema';
import { Admin } from './resources/admin.ts';
import { Agents } from './resources/agents.ts';
import { Billing } from './resources/billing.ts';
import { Activity, Calls, Savings } from './resources/calls.ts';
import { Chat } from './resources/chat.ts';
import { Discovery } from './resources/discovery.ts';
import { Connections, ManagedAgents, ManagedRuns } from './resources/managed.ts';
import { Embeddings, Models } from './resources/models.ts';
import { Outcomes } from './resources/outcomes.ts';
import { ProviderKeys } from './resources/provider-keys.ts';
import { Settings } from './resources/settings.ts';
import { Workflows } from './resources/workflows.ts';
import { callCapability, type CapabilityArgs, type CapabilityName, type CapabilityOutput } from './rest/route.ts';
import { Run, type RunOptions } from './run.ts';
import { Transport, validate } from './transport.ts';

export interface OptimizerClientOptions {
  /** The gateway's origin, e.g. http://127.0.0.1:8080 (a trailing /v1 is accepted). */
  baseURL: string;
  /** The tenant key (sk-opt-...) for completions and tenant routes. */
  apiKey?: string;
  /** The platform admin key, for client.admin only. */
  adminKey?: string;
  fetch?: typeof fetch;
  /** Headers sent on every request. */
  headers?: Record<string, string>;
}

export interface SignupResult {
  api_key: string;
  account_id: string;
  workflow_id: string;
}

export class OptimizerClient {
  readonly baseURL: string;
  readonly chat: Chat;
  readonly outcomes: Outcomes;
  readonly agents: Agents;
  readonly providerKeys: ProviderKeys;
  readonly calls: Calls;
  readonly activity: Activity;
  readonly savings: Savings;
  readonly settings: Settings;
  readonly workflows: Workflows;
  readonly admin: Admin;
  readonly discovery: Discovery;
  readonly models: Models;
  readonly embeddings: Embeddings;
  /** Wallet, statements, the savings ledger, top-ups, auto top-up and the estimate. */
  readonly billing: Billing;
  /** Sites managed agents act on (the secret is never returned). */
  readonly connections: Connections;
  /** The agents the platform runs for you, and their runs. */
  readonly managedAgents: ManagedAgents;
  /** One managed run, and executing the actions it proposes. */
  readonly managedRuns: ManagedRuns;
  readonly #t: Transport;

  constructor(opts: OptimizerClientOptions) {
    const t = new Transport(opts);
    this.#t = t;
    this.baseURL = t.baseURL;
    this.chat = new Chat(t);
    this.outcomes = new Outcomes(t);
    this.agents = new Agents(t);
    this.providerKeys = new ProviderKeys(t);
    this.calls = new Calls(t);
    this.activity = new Activity(t);
    this.savings = new Savings(t);
    this.settings = new Settings(t);
    this.workflows = new Workflows(t);
    this.admin = new Admin(t);
    this.discovery = new Discovery(t);
    this.models = new Models(t);
    this.embeddings = new Embeddings(t);
    this.billing = new Billing(t);
    this.connections = new Connections(t);
    this.managedAgents = new ManagedAgents(t);
    this.managedRuns = new ManagedRuns(t);
  }

  /**
   * Calls any control-plane capability over REST by its name, as the tRPC client names it
   * (`'billing.view'`, `'workflow.steps'`, `'settings.setGuard'`), typed by that capability's
   * input and answer: `await client.call('workflow.steps', { id })`. The named resources call
   * the same routes.
   */
  call<K extends CapabilityName>(name: K, ...args: CapabilityArgs<K>): Promise<CapabilityOutput<K>> {
    return callCapability(this.#t, name, ...args);
  }

  /** Creates an account; the answer holds its first key, shown only this once. */
  static async signup(baseURL: string, input: SignupRequest, opts: { fetch?: typeof fetch } = {}): Promise<SignupResult> {
    const body = validate(signupRequest, input, 'POST /v1/signup');
    const t = new Transport({ baseURL, fetch: opts.fetch });
    return t.json<SignupResult>({ method: 'POST', path: '/v1/signup', auth: 'none', body });
  }

  /** A run: numbers its calls and links each to its parent step. */
  run(opts: RunOptions = {}): Run {
    return new Run(this.chat.completions, this.outcomes, opts);
  }
}
