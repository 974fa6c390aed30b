// The Redis hot store: plain keys and atomic claims through node-redis, entity-shaped
// records (idempotency) through redis-om, notices over pub/sub.
import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { Repository, Schema, EntityId } from 'redis-om';
import { BUDGET_SCRIPT, readReply, scriptArgs, scriptKeys, type BudgetAnswer, type BudgetOp } from './budget.ts';
import { deliver, type HotStore, type IdempotencyRecord, type MessageHandler } from './store.ts';

type Client = ReturnType<typeof createClient>;

const COUNT_SCRIPT = "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n";
const BUDGET_SHA = createHash('sha1').update(BUDGET_SCRIPT).digest('hex');

const idempotencySchema = (prefix: string) =>
  new Schema(
    `${prefix}idem`,
    {
      fingerprint: { type: 'string' },
      state: { type: 'string' },
      status: { type: 'number' },
      headers: { type: 'string' },
      body: { type: 'string' },
    },
    { dataStructure: 'HASH' },
  );

export class RedisHotStore implements HotStore {
  readonly kind = 'redis' as const;
  readonly #client: Client;
  readonly #subscriber: Client;
  readonly #idempotency: Repository;
  /** Every key and channel starts with it (REDIS_KEY_PREFIX), so deployments sharing one Redis stay apart. */
  readonly #prefix: string;
  readonly #onError: (e: Error) => void;
  #closed = false;

  private constructor(client: Client, subscriber: Client, prefix: string, onError: (e: Error) => void) {
    this.#client = client;
    this.#prefix = prefix;
    this.#subscriber = subscriber;
    this.#onError = onError;
    this.#idempotency = new Repository(idempotencySchema(prefix), client);
  }

  static async connect(url: string, prefix: string, onError: (e: Error) => void): Promise<RedisHotStore> {
    // no offline queue: while Redis is unreachable a command fails at once (503, fail closed) instead of waiting for it
    const client: Client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: (n) => Math.min(n * 100, 2000) } });
    client.on('error', onError);
    await client.connect();
    const subscriber = client.duplicate();
    subscriber.on('error', onError);
    await subscriber.connect();
    return new RedisHotStore(client, subscriber, prefix, onError);
  }

  async get(key: string): Promise<string | null> {
    return this.#client.get(this.#prefix + key);
  }
  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#client.set(this.#prefix + key, value, { PX: Math.max(1, Math.round(ttlMs)) });
  }
  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const r = await this.#client.set(this.#prefix + key, value, { PX: Math.max(1, Math.round(ttlMs)), NX: true });
    return r === 'OK';
  }
  async del(key: string): Promise<void> {
    await this.#client.del(this.#prefix + key);
  }
  async count(key: string, ttlMs: number): Promise<number> {
    // one round trip: the count and, on the first, its expiry (a counter never outlives its window)
    const n = await this.#client.eval(COUNT_SCRIPT, { keys: [this.#prefix + key], arguments: [String(Math.max(1, Math.round(ttlMs)))] });
    return Number(n);
  }
  async saveIdempotency(id: string, rec: IdempotencyRecord, ttlMs: number): Promise<void> {
    await this.#idempotency.save(id, { ...rec });
    await this.#idempotency.expire(id, Math.max(1, Math.ceil(ttlMs / 1000)));
  }
  async fetchIdempotency(id: string): Promise<IdempotencyRecord | null> {
    const e = await this.#idempotency.fetch(id);
    if (e.fingerprint === undefined) return null;
    const rec = { ...e } as Record<string | symbol, unknown>;
    delete rec[EntityId];
    return rec as unknown as IdempotencyRecord;
  }
  async budget(key: string, op: BudgetOp): Promise<BudgetAnswer> {
    // one round trip per operation: the script by its hash (EVALSHA), sent whole (EVAL, which
    // caches it) only when this Redis does not know it yet (a restart, a flush, a new server)
    const args = { keys: scriptKeys(key, op).map((k) => this.#prefix + k), arguments: scriptArgs(op) };
    try {
      return readReply(await this.#client.evalSha(BUDGET_SHA, args));
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err; // Redis's own reply code for an unknown script
      return readReply(await this.#client.eval(BUDGET_SCRIPT, args));
    }
  }
  async publish(channel: string, message: string): Promise<void> {
    await this.#client.publish(this.#prefix + channel, message);
  }
  async subscribe(channel: string, handler: MessageHandler): Promise<void> {
    // after close nothing is delivered: the services a handler would touch are shutting down
    await this.#subscriber.subscribe(this.#prefix + channel, (m) => {
      if (!this.#closed) deliver(handler, m, this.#onError);
    });
  }
  async ping(): Promise<void> {
    await this.#client.ping();
  }
  async close(): Promise<void> {
    this.#closed = true;
    await this.#subscriber.quit().catch(() => undefined);
    await this.#client.quit().catch(() => undefined);
  }
}
