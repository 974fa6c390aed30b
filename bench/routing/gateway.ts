// Starts the gateway as a child process on a temporary DATA_DIR and sets it up for the replay
// through its public admin and tenant APIs only: the replay vendor as a custom provider, every
// replay model in the catalog (every seeded model disabled), a tenant, and its routing settings.
import { NODE_FLAGS } from '../../apps/api/src/node-flags.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OptimizerClient, isOptimizerError } from '@optimizer/sdk';
import { freePort, spawnNode, waitUntil, type Child } from '../overhead/procs.ts';
import { metricValue } from '../prometheus.ts';
import type { Models } from './data.ts';
import { strengthsOf } from './strengths.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..');
const guard = join(here, '..', 'overhead', 'child-guard.ts');

export const REPLAY_PROVIDER = 'replay';

export interface Gateway {
  child: Child;
  origin: string;
  adminKey: string;
}

/** `onCleanup` receives the removal of the temporary DATA_DIR as soon as it exists, so it goes even if the start fails. */
export async function startGateway(onCleanup: (fn: () => void) => void, fixedPort?: number, env: Record<string, string> = {}): Promise<Gateway> {
  const port = fixedPort ?? (await freePort());
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-routing-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const adminKey = `adm-bench-${randomBytes(24).toString('base64url')}`;
  const child = spawnNode('gateway', [...NODE_FLAGS, '--import', guard, join(repoRoot, 'apps', 'api', 'src', 'main.ts')], {
    core: undefined,
    cwd: repoRoot,
    // A clean environment: nothing from the caller's shell (DATABASE_URL, vendor keys) leaks in.
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? tmpdir(),
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ADMIN_KEY: adminKey,
      METER_FLUSH_MS: '100',
      // the benchmark measures routing, not the wallet: a full run's spend plus the reservations of the
      // calls and learning jobs in flight passed the default $25 dev allowance, and calls failed with 402
      BILLING_DEV_ALLOWANCE_USD: '10000',
      ...env,
    },
  });
  const origin = `http://127.0.0.1:${port}`;
  // a first boot makes and migrates a new embedded database: on a loaded 2-core CI machine (the whole suite
  // running beside it) that took more than 90 s; the browser test's hook allows 300
  await waitUntil(child, 'readiness (GET /readyz 200)', 240_000, async () => {
    const res = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.status === 200;
  });
  return { child, origin, adminKey };
}

/** The gateway's learning queue as /metrics shows it: jobs waiting and running. */
async function learningLoad(gw: Gateway): Promise<number> {
  const res = await fetch(`${gw.origin}/metrics`, { signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  const load = metricValue(text, 'optimizer_learning_queued') + metricValue(text, 'optimizer_learning_running');
  if (!Number.isFinite(load)) throw new Error('GET /metrics shows no optimizer_learning_queued and optimizer_learning_running gauges');
  return load;
}

/**
 * Resolves once the gateway has learned what the calls answered so far taught (its learning queue
 * empty on two reads a few milliseconds apart: a call's learning is queued as its answer goes).
 */
export async function learningSettled(gw: Gateway): Promise<void> {
  for (let idle = 0; idle < 2; ) {
    idle = (await learningLoad(gw)) === 0 ? idle + 1 : 0;
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function adminCall(gw: Gateway, method: 'PUT' | 'POST', path: string, body: unknown): Promise<void> {
  const res = await fetch(`${gw.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
}

export interface Setup {
  /** Seeded catalog models disabled so only replay models can be routed. */
  disabled: number;
  registered: string[];
}

/** Registers the replay vendor and its models (`strengths` overrides strengths.ts per model), and disables every other catalog model. */
export async function configureCatalog(gw: Gateway, vendorUrl: string, models: Models, strengths?: Record<string, number>): Promise<Setup> {
  // Through the REST route directly: the body carries `wire`, which the SDK's provider input does not list.
  await adminCall(gw, 'PUT', `/v1/admin/providers/${REPLAY_PROVIDER}`, { base_url: `${vendorUrl}/v1`, api_key: 'sk-replay', enabled: true, wire: 'openai' });
  const admin = new OptimizerClient({ baseURL: gw.origin, adminKey: gw.adminKey }).admin;
  const registered: string[] = [];
  for (const [model, price] of Object.entries(models.models)) {
    const isBaseline = model === models.baseline;
    await admin.catalog.put(model, {
      provider: REPLAY_PROVIDER,
      input_per_mtok: price.input_per_mtok,
      output_per_mtok: price.output_per_mtok,
      cached_input_per_mtok: price.input_per_mtok,
      cache_write_multiplier: 1,
      input_modalities: ['text'],
      output_modalities: ['text'],
      tools: 'none',
      // The judge (the baseline) must answer JSON.
      structured_outputs: isBaseline,
      reasoning_efforts: [],
      context_length: 128_000,
      max_output_tokens: 4096,
      search_only: false,
      moderation_only: false,
      // A prior only (see strengths.ts); the baseline is the strongest, which also makes it the default for `auto`.
      strengths: strengthsOf(model, isBaseline, strengths?.[model]),
      disabled: false,
      failover: [],
    });
    registered.push(model);
  }
  let disabled = 0;
  for (const m of await admin.catalog.list()) {
    if (m.provider === REPLAY_PROVIDER || m.disabled) continue;
    await admin.catalog.setDisabled(m.model, true);
    disabled++;
  }
  return { disabled, registered };
}

export interface Tenant {
  apiKey: string;
  accountId: string;
  workflowId: string;
}

export async function signup(gw: Gateway): Promise<Tenant> {
  const r = await OptimizerClient.signup(gw.origin, { company: 'routing-bench', email: `routing-${randomUUID().slice(0, 8)}@example.com` });
  return { apiKey: r.api_key, accountId: r.account_id, workflowId: r.workflow_id };
}

/** Writes the routing settings; 'not-built' when the route answers 404 (the optimizer is still being built). */
export async function putRoutingSettings(gw: Gateway, t: Tenant, settings: { baseline_model: string; judge_model: string; quality_floor: number }): Promise<'ok' | 'not-built'> {
  const client = new OptimizerClient({ baseURL: gw.origin, apiKey: t.apiKey });
  try {
    await client.settings.routing.put(settings);
    return 'ok';
  } catch (e) {
    if (isOptimizerError(e) && e.status === 404) return 'not-built';
    throw e;
  }
}

export interface WorkflowEvent {
  kind: string;
  at?: string;
  [field: string]: unknown;
}

/** GET /v1/workflows/<id>/events; null when the route answers 404. */
export async function workflowEvents(gw: Gateway, t: Tenant): Promise<WorkflowEvent[] | null> {
  const res = await fetch(`${gw.origin}/v1/workflows/${encodeURIComponent(t.workflowId)}/events`, {
    headers: { authorization: `Bearer ${t.apiKey}` },
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`GET /v1/workflows/${t.workflowId}/events answered ${res.status}: ${text.slice(0, 300)}`);
  return ((JSON.parse(text) as { data?: WorkflowEvent[] }).data ?? []).filter((e) => e && typeof e.kind === 'string');
}

export interface WorkflowStep {
  label: string;
  settled: boolean;
  chosen: string;
  probes: number;
  served: number;
  judge_error?: number;
  exploration?: { calls: number; baseline_usd: number; spent_usd: number; share_of_baseline: number; payback: number; rate: number };
  learning?: { risk_budget: number; risk_used: number; trials: Record<string, number> };
  candidates?: { policy: string; n: number; retention: number; lcb: number; cost_share: number; by_judge?: { retention: number; n: number }; by_outcome?: { retention: number; n: number } }[];
}

/** The gateway's step registry for the tenant's workflow: what each step settled on. */
export async function workflowSteps(gw: Gateway, t: Tenant): Promise<WorkflowStep[]> {
  const res = await fetch(`${gw.origin}/v1/workflows/${encodeURIComponent(t.workflowId)}/steps`, { headers: { authorization: `Bearer ${t.apiKey}` }, signal: AbortSignal.timeout(30_000) });
  if (!res.ok) return [];
  return ((await res.json()) as { data?: WorkflowStep[] }).data ?? [];
}
