// Accounts, workflows (proxy agents) and their keys. A key is shown once, at
// creation; only its keyed hash is stored.
import type { Database } from '../db/database.ts';
import { Account, ApiKey, Workflow } from '../db/entities.ts';
import { ApiError } from '../errors.ts';
import { keyHint, newId, newTenantKey, type KeyHasher } from '../security/secrets.ts';
import type { KeyCache } from './key-cache.ts';

type Em = ReturnType<Database['em']>;

/** What a new account is promised of its dev allowance (billing/signup-allowance.ts decides it). */
export interface SignupPromise {
  /** Whether the allowance waits for the emailed confirmation. */
  confirmationRequired: boolean;
  /** The token to email (never stored or returned in clear); null when none is needed. */
  token: string | null;
}

/** What signing up asks of the allowance: billing answers it, so accounts need not know billing. */
export interface AllowancePromiser {
  promise(em: Em, accountId: string): Promise<SignupPromise>;
  mail(accountId: string, email: string, token: string): Promise<void>;
}

export interface AgentView {
  id: string;
  name: string;
  discovery_enabled: boolean;
  created_at: string;
  calls: number;
  baseline_cost: number;
  actual_cost: number;
  saving: number;
}

export class Accounts {
  readonly #db: Database;
  readonly #hasher: KeyHasher;
  readonly #keys: KeyCache;
  #allowance: AllowancePromiser | null = null;

  constructor(db: Database, hasher: KeyHasher, keys: KeyCache) {
    this.#db = db;
    this.#hasher = hasher;
    this.#keys = keys;
  }

  /** What new accounts are promised (set once the billing services exist; see services.ts). */
  attachAllowance(allowance: AllowancePromiser): void {
    this.#allowance = allowance;
  }

  async signup(input: { company: string; email: string }) {
    const email = input.email.trim().toLowerCase();
    const { account, workflow, issued, promised } = await this.#db.em().transactional(async (em) => {
      if (await em.count(Account, { email })) throw new ApiError('conflict', 'An account with this email already exists.', { param: 'email' });
      const account = em.create(Account, { id: newId('acct'), company: input.company.trim(), email });
      await em.flush();
      const workflow = em.create(Workflow, { id: newId('wf'), accountId: account.id, name: 'default' });
      await em.flush();
      const issued = this.#issueKey(em, account.id, workflow.id);
      await em.flush();
      const promised = this.#allowance ? await this.#allowance.promise(em, account.id) : null;
      return { account, workflow, issued, promised };
    });
    this.#keys.remember(issued.hash, { accountId: account.id, workflowId: workflow.id, keyId: issued.id });
    if (promised?.token) await this.#allowance!.mail(account.id, email, promised.token);
    return {
      account_id: account.id,
      workflow_id: workflow.id,
      api_key: issued.key,
      /** `pending`: the dev allowance waits for the link emailed to this address. */
      email_confirmation: promised?.confirmationRequired ? ('pending' as const) : ('not_required' as const),
    };
  }

  #issueKey(em: ReturnType<Database['em']>, accountId: string, workflowId: string) {
    const key = newTenantKey();
    const hash = this.#hasher.hash(key);
    const row = em.create(ApiKey, { id: newId('key'), accountId, workflowId, hash, hint: keyHint(key), revokedAt: null });
    return { key, hash, id: row.id, hint: row.hint };
  }

  async getWorkflow(accountId: string, workflowId: string): Promise<Workflow> {
    const wf = await this.#db.em().findOne(Workflow, { id: workflowId, accountId });
    if (!wf) throw new ApiError('not_found', `No agent ${workflowId}.`);
    return wf;
  }

  async createAgent(accountId: string, name: string) {
    const { workflow, issued } = await this.#db.em().transactional(async (em) => {
      const workflow = em.create(Workflow, { id: newId('wf'), accountId, name: name.trim() });
      await em.flush();
      return { workflow, issued: this.#issueKey(em, accountId, workflow.id) };
    });
    this.#keys.remember(issued.hash, { accountId, workflowId: workflow.id, keyId: issued.id });
    return { id: workflow.id, name: workflow.name, api_key: issued.key, key_id: issued.id };
  }

  async createKey(accountId: string, workflowId: string) {
    await this.getWorkflow(accountId, workflowId);
    const em = this.#db.em();
    const issued = this.#issueKey(em, accountId, workflowId);
    await em.flush();
    this.#keys.remember(issued.hash, { accountId, workflowId, keyId: issued.id });
    return { id: issued.id, api_key: issued.key, hint: issued.hint };
  }

  async listKeys(accountId: string, workflowId: string) {
    await this.getWorkflow(accountId, workflowId);
    const rows = await this.#db.em().find(ApiKey, { accountId, workflowId }, { orderBy: { createdAt: 'asc' } });
    return rows.map((r) => ({ id: r.id, hint: r.hint, created_at: r.createdAt.toISOString(), revoked: r.revokedAt !== null }));
  }

  async revokeKey(accountId: string, workflowId: string, keyId: string) {
    const em = this.#db.em();
    const row = await em.findOne(ApiKey, { id: keyId, accountId, workflowId });
    if (!row) throw new ApiError('not_found', `No key ${keyId}.`);
    if (!row.revokedAt) {
      row.revokedAt = new Date();
      await em.flush();
    }
    await this.#keys.revoke(row.hash);
  }

  async listAgents(accountId: string): Promise<AgentView[]> {
    const em = this.#db.em();
    const workflows = await em.find(Workflow, { accountId }, { orderBy: { createdAt: 'asc' } });
    const totals = (await em.getConnection().execute(
      `select workflow_id, sum(calls)::float8 as calls, coalesce(sum(baseline_micros),0)::bigint as baseline,
              coalesce(sum(actual_micros),0)::bigint as actual, coalesce(sum(saving_micros),0)::bigint as saving
         from call_totals where account_id = ? group by workflow_id`,
      [accountId],
    )) as { workflow_id: string; calls: number; baseline: string; actual: string; saving: string }[];
    const byWf = new Map(totals.map((t) => [t.workflow_id, t]));
    return workflows.map((w) => {
      const t = byWf.get(w.id);
      return {
        id: w.id,
        name: w.name,
        discovery_enabled: w.discoveryEnabled,
        created_at: w.createdAt.toISOString(),
        calls: t?.calls ?? 0,
        baseline_cost: Number(t?.baseline ?? 0) / 1e6,
        actual_cost: Number(t?.actual ?? 0) / 1e6,
        saving: Number(t?.saving ?? 0) / 1e6,
      };
    });
  }
}
