// Starts a real gateway for a test: its own data directory, and on PostgreSQL (every file
// but the embedded default's own, vitest.config.ts) its own fresh database on the machine's
// server plus the machine's Redis.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { CapabilityTree } from '../../src/capabilities/capability.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createServices, type ServiceHooks, type Services } from '../../src/services.ts';

export const onPostgres = process.env.TEST_DB === 'postgres';
/**
 * TEST_FAST_PATH=off runs every test gateway with the socket path off (FAST_PATH=off), so
 * the whole suite can be run through node:http and Fastify alone (`npm run test:node-http`).
 * A test that sets FAST_PATH itself keeps its own.
 */
export const fastPathEnv: Record<string, string> = process.env.TEST_FAST_PATH === 'off' ? { FAST_PATH: 'off' } : {};
/**
 * The suite signs up, logs in and sends wrong keys from 127.0.0.1 by the thousand: test gateways
 * get abuse limits no test reaches, and the dev allowance the billing tests were written for. A
 * test of the limits themselves (door-abuse.test.ts) sets its own.
 */
export const generousDoorsEnv: Record<string, string> = {
  DOOR_SIGNUP_PER_HOUR: '1000000000',
  DOOR_LOGIN_PER_MINUTE: '1000000000',
  DOOR_ESTIMATE_PER_MINUTE: '1000000000',
  DOOR_ADMIN_PER_MINUTE: '1000000000',
  DOOR_BAD_KEY_PER_MINUTE: '1000000000',
  BILLING_DEV_ALLOWANCE_USD: '25',
};
/**
 * Tests name models the catalog does not list (the mocks' magic fault names: `error-5xx`,
 * `slow`, …) on the platform's key: test gateways price them at zero, as an operator may
 * (UNKNOWN_MODEL_PRICE). A test of that rule (unpriced-models.test.ts) sets `off`.
 */
export const unlistedPriceEnv: Record<string, string> = { UNKNOWN_MODEL_PRICE: '0,0' };
const pgAdminUrl = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The database and Redis a gateway on PostgreSQL uses. Replicas of one test share its database
 * and so its Redis keys; concurrent tests do not (the doors count per client address, and every
 * test gateway's clients are 127.0.0.1).
 */
export function hotStoreEnv(databaseUrl: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `optimizer:${new URL(databaseUrl).pathname.slice(1)}:` };
}

export interface TestDatabase {
  url: string | undefined;
  drop(): Promise<void>;
}

/** A fresh PostgreSQL database for a file on PostgreSQL (or when forced); nothing (embedded) otherwise. */
export async function testDatabase(opts: { force?: boolean } = {}): Promise<TestDatabase> {
  if (!onPostgres && !opts.force) return { url: undefined, drop: async () => {} };
  const name = `optimizer_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgAdminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = pgAdminUrl.replace(/\/[^/]*$/, `/${name}`);
  return {
    url,
    async drop() {
      const c = new pg.Client({ connectionString: pgAdminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * Gives a fresh data directory the migrated embedded database built once for this
 * run, so a start reopens it instead of running initdb. A no-op on PostgreSQL.
 */
export function seedDataDir(dataDir: string): void {
  if (onPostgres) return;
  const template = join(inject('pgliteTemplate'), 'pgdata');
  if (existsSync(template) && !existsSync(join(dataDir, 'pgdata'))) cpSync(template, join(dataDir, 'pgdata'), { recursive: true });
}

export interface TestGateway {
  url: string;
  app: FastifyInstance;
  services: Services;
  adminKey: string;
  logs: string[];
  dataDir: string;
  /** Settles once the learning routed calls left after their answers has ended (and is metered). */
  learned(): Promise<void>;
  /** Stops the gateway; the data directory and database stay for a restart. */
  stop(): Promise<void>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

export interface GatewayOptions {
  env?: Record<string, string>;
  dataDir?: string;
  database?: TestDatabase;
  /** Replaces parts of the composition (e.g. the semantic cache's embedder factory). */
  hooks?: Omit<ServiceHooks, 'announceAdminKey'>;
  /** The capabilities the doors serve (default: the gateway's). */
  capabilities?: CapabilityTree;
}

export async function startGateway(opts: GatewayOptions = {}): Promise<TestGateway> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'optimizer-test-'));
  const ownDb = opts.database ? null : await testDatabase();
  const database = opts.database ?? ownDb!;
  if (!database.url) seedDataDir(dataDir);
  const adminKey = opts.env?.ADMIN_KEY ?? `admin-${randomBytes(24).toString('hex')}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'info',
    ADMIN_KEY: adminKey,
    METER_FLUSH_MS: '50',
    ...generousDoorsEnv,
    ...unlistedPriceEnv,
    ...fastPathEnv,
    ...(database.url ? hotStoreEnv(database.url) : {}),
    ...opts.env,
  };
  const config = loadConfig(env);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(chunk.toString('utf8'));
      cb();
    },
  });
  const logger = createLogger(config.LOG_LEVEL, sink);
  const services = await createServices(config, logger, { ...opts.hooks, announceAdminKey: (k) => logs.push(`announced admin key ${k}`) });
  const app = await buildApp(services, { capabilities: opts.capabilities });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
    await services.close();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    services,
    adminKey,
    logs,
    dataDir,
    learned: () => services.learning.idle(),
    stop,
    async close() {
      await stop();
      if (ownDb) await ownDb.drop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs up a fresh tenant and returns its key and ids. */
export async function signup(gw: { url: string }, company = 'Acme'): Promise<{ api_key: string; account_id: string; workflow_id: string }> {
  const email = `${randomBytes(6).toString('hex')}@example.com`;
  const r = await fetch(`${gw.url}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ company, email }),
  });
  if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${await r.text()}`);
  return (await r.json()) as { api_key: string; account_id: string; workflow_id: string };
}

export function authed(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra };
}
