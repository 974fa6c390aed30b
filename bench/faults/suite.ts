// The fault suite: a cluster of gateway replicas on the suite's own PostgreSQL and Redis behind
// HAProxy, and one scripted scenario per fault. Each scenario signs up a fresh tenant, runs the
// load through the balancer, strikes its fault, heals it, and checks afterwards:
//   - ledger: every acknowledged call is in GET /v1/calls exactly once, the dashboard's totals
//     equal the listed calls, and no call is metered as answered beyond the requests that failed
//     (a call a replica answered but could not deliver);
//   - idempotency: keys answered before, during and after the fault, replayed on another replica
//     than the one that answered, return the same call and are charged once;
//   - the balancer: a sick replica is taken out by its health check (HAProxy's own state), and no
//     request fails once it is out (the survivors serve);
//   - recovery: no request fails once the fault is healed and every replica is back.
import pg from 'pg';
import { killAll, sleep, stopChild } from '../overhead/procs.ts';
import { startMock, type Mock } from '../overhead/targets.ts';
import { checkLedger } from '../scale/ledger.ts';
import { agentCalls, api, makeAgents, signup, type Agent } from '../scale/tenant.ts';
import { clusterSecrets, Replica, serverStates, startFaultBalancer, waitForState, whyDown, type FaultBalancer } from './cluster.ts';
import { GateProcess, startPostgres, startRedis, type PrivatePostgres, type PrivateRedis } from './env.ts';
import { Load, send, type Kind, type Outcome } from './load.ts';

export interface SuiteOptions {
  replicas: number;
  ratePerSec: number;
  /** Load before the fault. */
  warmMs: number;
  /** How long the fault lasts (where it is held). */
  holdMs: number;
  /** Load after recovery. */
  tailMs: number;
  /** Keyed calls replayed on another replica per scenario. */
  replays: number;
  log: (line: string) => void;
}

export const SMALL: Omit<SuiteOptions, 'log'> = { replicas: 2, ratePerSec: 12, warmMs: 1000, holdMs: 2000, tailMs: 1000, replays: 6 };
export const FULL: Omit<SuiteOptions, 'log'> = { replicas: 3, ratePerSec: 30, warmMs: 5000, holdMs: 8000, tailMs: 5000, replays: 30 };

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

export interface ScenarioResult {
  fault: string;
  checks: Check[];
  requests: number;
  outcomes: Record<string, number>;
  ms: number;
}

/** The replicas' meter flush period: a batch waits this long in the write-ahead file before PostgreSQL. */
const FLUSH_MS = 2000;

/**
 * The replicas' first-byte and idle timeouts on the vendor, one attempt per call (UPSTREAM_MAX_RETRIES 0:
 * the gateway's own tests cover its retries; here a stall longer than the timeout fails every call sent in it).
 */
const VENDOR_TIMEOUT_MS = 2500;
/** Longest a call can take against a vendor that sends nothing: its attempt times out, plus slack. */
const STALLED_CALL_MAX_MS = VENDOR_TIMEOUT_MS + 2000;

/** After the balancer has every replica back, the moment from which no request may fail. */
const RECOVERY_GRACE_MS = 1000;

/** Time for HAProxy (inter 1s fall 2) to take a failing replica out: two failed checks and slack. */
const DETECT_MS = 6000;

/** A window of the run, and the requests of the ordinary kinds that failed in it. */
interface Marks {
  /** When the fault was healed and every replica was back in the balancer. */
  recoveredAt: number;
}

/** The scenarios whose fault is stopping replica r1 itself. */
const KILLS_VICTIM: readonly string[] = ['sigkill', 'sigterm-drain'];
export const SCENARIOS = ['sigkill', 'postgres-restart', 'redis-drop', 'vendor-stall', 'stream-cut', 'gateway-wal-full', 'postgres-wal-full', 'sigterm-drain'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

const DESCRIPTIONS: Record<ScenarioName, string> = {
  sigkill: 'SIGKILL a replica under load; restart it on its DATA_DIR',
  'postgres-restart': 'restart PostgreSQL (fast shutdown, every session ended) under load',
  'redis-drop': 'cut one replica off Redis, then SIGKILL Redis itself and restart it',
  'vendor-stall': 'the vendor accepts connections and sends nothing',
  'stream-cut': 'streams cut by the vendor mid-answer and by clients mid-stream, under load',
  'gateway-wal-full': "fill the disk under one replica's write-ahead file",
  'postgres-wal-full': "fill PostgreSQL's pg_wal disk (it PANICs), then free it",
  'sigterm-drain': 'SIGTERM a replica while streams are in flight through it',
};

export function describeScenario(name: ScenarioName): string {
  return DESCRIPTIONS[name];
}

export class FaultSuite {
  readonly o: SuiteOptions;
  pg!: PrivatePostgres;
  redis!: PrivateRedis;
  vendor!: Mock;
  vendorGate!: GateProcess;
  replicas: Replica[] = [];
  balancer!: FaultBalancer;
  #firstId = 0;

  private constructor(o: SuiteOptions) {
    this.o = o;
  }

  static async start(o: SuiteOptions): Promise<FaultSuite> {
    const s = new FaultSuite(o);
    try {
      await s.#start();
    } catch (e) {
      await s.close();
      throw e;
    }
    return s;
  }

  async #start(): Promise<void> {
    const t0 = Date.now();
    this.pg = await startPostgres({ walBytes: 24 * 1024 * 1024 });
    this.redis = await startRedis();
    // the mock vendor as its own process (not starved by the load generator on a busy machine); streams of
    // ~16 chunks 100 ms apart (~1.6 s): long enough to be in flight when a replica is told to stop
    this.vendor = await startMock({ core: undefined, vendorLatencyMs: 0, chunkDelayMs: 100, model: 'gpt-4o-mini' });
    this.vendorGate = await GateProcess.start({ host: '127.0.0.1', port: Number(new URL(this.vendor.url).port) });
    const settings = {
      databaseUrl: this.pg.adminUrl,
      redis: { host: '127.0.0.1', port: this.redis.port },
      vendorUrl: `http://${this.vendorGate.url}/v1`,
      secrets: clusterSecrets(),
      walBytes: 4 * 1024 * 1024,
      env: {
        // batches wait 2 s in the write-ahead file: a killed replica leaves acknowledged calls only there
        METER_FLUSH_MS: String(FLUSH_MS),
        UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(VENDOR_TIMEOUT_MS),
        UPSTREAM_IDLE_TIMEOUT_MS: String(VENDOR_TIMEOUT_MS),
        UPSTREAM_MAX_RETRIES: '0',
        CIRCUIT_COOLDOWN_MS: '1000',
        // the periodic jobs every second (their defaults are up to a minute): each meets every outage
        BILLING_SWEEP_MS: '1000',
        ALERT_SPEND_CHECK_MS: '1000',
        MANAGED_RUN_SWEEP_MS: '1000',
      },
    };
    for (let i = 0; i < this.o.replicas; i++) this.replicas.push(await Replica.create(`r${i + 1}`, settings));
    // the first alone: it migrates the database
    await this.replicas[0]!.start();
    await Promise.all(this.replicas.slice(1).map((r) => r.start()));
    this.balancer = await startFaultBalancer(this.replicas);
    this.o.log(`cluster up in ${Date.now() - t0} ms: ${this.replicas.length} replicas, PostgreSQL :${this.pg.port} (pg_wal on a ${24} MB tmpfs), Redis :${this.redis.port}, HAProxy ${this.balancer.origin}`);
  }

  async close(): Promise<void> {
    await this.balancer?.stop().catch(() => {});
    await Promise.all(this.replicas.map((r) => r.close().catch(() => {})));
    await this.vendorGate?.close().catch(() => {});
    if (this.vendor) await stopChild(this.vendor.child).catch(() => {});
    await this.redis?.close().catch(() => {});
    await this.pg?.close().catch(() => {});
    await killAll();
  }

  /** Waits until the balancer has every replica UP; when that happened. */
  async allUp(timeoutMs = 60_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await serverStates(this.balancer.statsSocket).catch(() => ({}) as Record<string, string>);
      if (this.replicas.every((r) => /^UP/.test(states[r.name] ?? ''))) return Date.now();
      if (Date.now() > deadline) {
        const down = await Promise.all(this.replicas.filter((r) => !/^UP/.test(states[r.name] ?? '')).map((r) => whyDown(r)));
        throw new Error(`replicas not all UP after ${timeoutMs} ms: ${JSON.stringify(states)}\n${down.join('\n')}`);
      }
      await sleep(100);
    }
  }

  /** Runs one scenario; `restart: false` leaves a replica stopped by SIGTERM down (the last scenario of a run). */
  async run(name: ScenarioName, opts: { restart?: boolean } = {}): Promise<ScenarioResult> {
    const t0 = Date.now();
    await this.allUp();
    const origin = this.balancer.origin;
    if (this.replicas.some((r) => !r.running)) throw new Error('a replica is down: only the last scenario may leave one stopped');
    const owner = await signup(origin);
    const total = (this.o.ratePerSec * (this.o.warmMs + this.o.holdMs * 2 + this.o.tailMs + 30_000)) / 1000;
    const agents = await makeAgents(origin, owner, total, name);
    // an odd cycle: the balancer's round robin sends every kind to every replica
    const mix: Kind[] = name === 'stream-cut' ? ['json', 'stream', 'vendor-cut', 'keyed', 'client-cut', 'stream', 'json'] : ['json', 'stream', 'keyed', 'stream', 'json'];
    const load = new Load(origin, agents, { ratePerSec: this.o.ratePerSec, mix, timeoutMs: 20_000, firstId: (this.#firstId += 10_000_000) });
    load.start();
    const checks: Check[] = [];
    // the processes at the start; only the fault's own victim may be stopped (and started again)
    const before = this.replicas.map((r) => ({ r, child: r.child! }));
    let marks: Marks;
    try {
      await sleep(this.o.warmMs);
      marks = await this.#strike(name, load, checks, opts.restart ?? true);
      await sleep(this.o.tailMs);
    } finally {
      await load.stop();
    }
    const struck = KILLS_VICTIM.includes(name) ? this.replicas[0] : undefined;
    const died = before.filter(({ r, child }) => r !== struck && (r.child !== child || !r.running));
    checks.push(check('no replica dies of it', died.length === 0, died.length === 0 ? `${before.length - (struck ? 1 : 0)} replicas the fault did not stop ran through it` : died.map(({ r, child }) => `${r.name} exited:\n${child.output().slice(-2000)}`).join('\n')));
    // from a second after the balancer has every replica back: a replica's readiness pings one Redis
    // connection, and its other clients may still be reconnecting for a moment (reported, not hidden)
    const settled = marks.recoveredAt + RECOVERY_GRACE_MS;
    const inGrace = load.failures(marks.recoveredAt, settled);
    const after = load.failures(settled);
    checks.push(check('serves after recovery', after.length === 0, `${after.length} of ${load.outcomes.filter((o) => o.startedAt >= settled).length} requests failed from ${RECOVERY_GRACE_MS} ms after every replica was back${after.length ? `: ${JSON.stringify(Load.tally(after))}` : ''}; ${inGrace.length} failed in between${inGrace.length ? ` ${JSON.stringify(Load.tally(inGrace))}` : ''}`));
    checks.push(...(await this.#idempotency(agents, load.outcomes)));
    checks.push(...(await this.#ledger(name, owner, agents, load)));
    const result: ScenarioResult = { fault: name, checks, requests: load.outcomes.length, outcomes: Load.tally(load.outcomes), ms: Date.now() - t0 };
    this.o.log(`${name}: ${checks.every((c) => c.pass) ? 'PASS' : 'FAIL'} in ${result.ms} ms, ${result.requests} requests ${JSON.stringify(result.outcomes)}`);
    for (const c of checks) this.o.log(`  ${c.pass ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
    return result;
  }

  /** Strikes the fault, checks what happens while it lasts, heals it; returns when all was back. */
  async #strike(name: ScenarioName, load: Load, checks: Check[], restart: boolean): Promise<Marks> {
    const sock = this.balancer.statsSocket;
    const victim = this.replicas[0]!;
    /** The sick replica is out, and nothing fails from then until `until`. */
    const takenOut = async (what: string, struckAt: number, heal: () => Promise<void>): Promise<void> => {
      const outMs = await waitForState(sock, victim.name, /^DOWN/, DETECT_MS + 4000);
      const outAt = Date.now();
      checks.push(check('balancer takes the sick replica out', outMs >= 0, outMs >= 0 ? `${victim.name} DOWN in HAProxy ${outAt - struckAt} ms after ${what}` : `${victim.name} still ${JSON.stringify((await serverStates(sock))[victim.name])}`));
      await sleep(this.o.holdMs);
      const healAt = Date.now();
      const failed = load.failures(outAt, healAt);
      const served = load.outcomes.filter((o) => o.startedAt >= outAt && o.startedAt < healAt);
      checks.push(check('survivors keep serving', failed.length === 0 && served.length > 0, `${served.length - failed.length}/${served.length} requests answered while ${victim.name} was out${failed.length ? `; failed: ${JSON.stringify(Load.tally(failed))}` : ''}`));
      await heal();
    };
    switch (name) {
      case 'sigkill': {
        const at = Date.now();
        victim.signal('SIGKILL');
        await victim.exited();
        await takenOut('SIGKILL', at, async () => {
          await victim.start(); // replays what its write-ahead file holds
        });
        // acknowledged by the victim within one flush period before the kill: likely only in its write-ahead file then
        const recent = load.outcomes.filter((o) => o.ok && o.server === victim.name && o.endedAt > at - FLUSH_MS && o.endedAt <= at);
        checks.push(check('restarted replica replays its write-ahead file', true, `${recent.length} calls acknowledged by ${victim.name} in the ${FLUSH_MS} ms before the kill (a flush period: their batch may not have reached PostgreSQL); the ledger checks below include them`));
        break;
      }
      case 'postgres-restart': {
        const at = Date.now();
        await this.pg.restart(1000);
        const failed = load.failures(at, Date.now());
        checks.push(check('outage is bounded', true, `PostgreSQL down ~1 s; ${failed.length} requests failed meanwhile ${JSON.stringify(Load.tally(failed))}`));
        break;
      }
      case 'redis-drop': {
        const at = Date.now();
        await victim.redisGate.cut();
        await takenOut(`its Redis connection was cut`, at, async () => {
          await victim.redisGate.open();
        });
        await this.allUp();
        await sleep(this.o.warmMs);
        const killAt = Date.now();
        await this.redis.kill();
        await sleep(1000);
        await this.redis.start();
        const failed = load.failures(killAt, Date.now());
        checks.push(check('Redis restarts with its keys', true, `Redis SIGKILLed and back from its append-only file in ${Date.now() - killAt} ms; ${failed.length} requests failed meanwhile ${JSON.stringify(Load.tally(failed))}`));
        break;
      }
      case 'vendor-stall': {
        const at = Date.now();
        // longer than a call's timeout: no call sent in it can be answered
        const stallMs = Math.max(this.o.holdMs, VENDOR_TIMEOUT_MS + 500);
        await this.vendorGate.stall();
        let allUp = true;
        const states: string[] = [];
        while (Date.now() - at < stallMs) {
          const s = await serverStates(sock);
          if (!this.replicas.every((r) => /^UP/.test(s[r.name] ?? ''))) {
            allUp = false;
            states.push(JSON.stringify(s));
          }
          await sleep(250);
        }
        await this.vendorGate.resume();
        await sleep(STALLED_CALL_MAX_MS); // requests sent during the stall end by their timeout
        const during = load.outcomes.filter((o) => o.startedAt >= at && o.startedAt < at + stallMs);
        const failed = during.filter((o) => !o.ok);
        const slowest = Math.max(0, ...failed.map((o) => o.endedAt - o.startedAt));
        checks.push(check('replicas stay in the balancer', allUp, allUp ? 'every replica UP throughout: a vendor stall is not a sick replica' : `states seen: ${states.slice(0, 3).join(' ')}`));
        const slowestAll = Math.max(0, ...during.map((o) => o.endedAt - o.startedAt));
        const late = during.filter((o) => o.endedAt - o.startedAt > stallMs + STALLED_CALL_MAX_MS);
        // every request ends with an answer or a catalogued error from the gateway, none by the client's own timeout
        checks.push(check('stalled calls end, none hangs', during.length > 0 && during.every((o) => o.status !== undefined && o.error !== 'timeout'), `${failed.length}/${during.length} requests sent during the ${stallMs} ms stall failed ${JSON.stringify(Load.tally(failed))}; failed ones within ${slowest} ms, slowest of all ${slowestAll} ms (first-byte timeout ${VENDOR_TIMEOUT_MS} ms, one attempt)${late.length ? `; ${late.length} took longer than the stall + ${STALLED_CALL_MAX_MS} ms` : ''}`));
        break;
      }
      case 'stream-cut': {
        await sleep(this.o.holdMs);
        const cuts = load.outcomes.filter((o) => o.kind === 'client-cut' || o.kind === 'vendor-cut');
        const vendorCut = cuts.filter((o) => o.kind === 'vendor-cut');
        const s = await serverStates(sock);
        const up = this.replicas.every((r) => /^UP/.test(s[r.name] ?? ''));
        checks.push(check('cut streams end with an error, replicas stay up', up && vendorCut.length > 0 && vendorCut.every((o) => !o.ok && !o.done), `${cuts.length} cut streams (${vendorCut.length} by the vendor: ${JSON.stringify(Load.tally(vendorCut))}); replicas ${JSON.stringify(s)}`));
        break;
      }
      case 'gateway-wal-full': {
        const at = Date.now();
        const filled = victim.wal.fill();
        await takenOut(`its write-ahead disk was filled (${(filled / 1e6).toFixed(1)} MB)`, at, async () => {
          victim.wal.unfill();
        });
        break;
      }
      case 'postgres-wal-full': {
        const at = Date.now();
        let filled = this.pg.wal.fill();
        // the WAL moves on to new segments (as other writers' volume would make it) until one cannot be
        // created: rather than after the ~1 MB the current segment still takes (minutes of a small load's batches).
        // Each checkpoint removes old segments and frees their space, so the filler takes that too:
        // without it the WAL lives on what its own checkpoints free and never runs out.
        for (let i = 0; i < 20 && (await this.pg.up()); i++) {
          await this.#adminQuery('create table if not exists fault_scratch (n int); insert into fault_scratch values (1); select pg_switch_wal()').catch(() => undefined);
          filled += this.pg.wal.fill();
          await sleep(100);
        }
        // the meter's batches need WAL: PostgreSQL PANICs when it cannot write a segment
        let downAt = 0;
        while (Date.now() - at < this.o.holdMs + 10_000) {
          if (!(await this.pg.up())) {
            downAt = Date.now();
            break;
          }
          await sleep(200);
        }
        await sleep(Math.max(0, this.o.holdMs - (Date.now() - at)));
        this.pg.wal.unfill();
        // after a PANIC the postmaster recovers by itself once WAL can be written; when its crash recovery
        // failed for want of space it has stopped, and is started again (as a supervisor would)
        const restarted = await this.pg.ensureUp(60_000);
        const failed = load.failures(at, Date.now());
        checks.push(check('PostgreSQL refused writes', downAt > 0, downAt ? `pg_wal full (${(filled / 1e6).toFixed(1)} MB filler) → PostgreSQL down ${downAt - at} ms later, back ${Date.now() - at} ms after the fill${restarted ? ' (started again: its crash recovery had failed for want of space)' : ' (recovered by itself)'}; ${failed.length} requests failed meanwhile ${JSON.stringify(Load.tally(failed))}` : 'PostgreSQL kept answering with its WAL disk full'));
        break;
      }
      case 'sigterm-drain': {
        // SIGTERM once streams are under way through the victim (their headers came from it)
        const liveStreams = () => [...load.live].filter((o) => o.kind === 'stream' && o.server === victim.name);
        const waitFrom = Date.now();
        while (liveStreams().length < 2 && Date.now() - waitFrom < 10_000) await sleep(20);
        const streams = liveStreams();
        const at = Date.now();
        victim.signal('SIGTERM');
        const code = await victim.exited();
        const exitedAt = Date.now();
        while (streams.some((o) => o.endedAt === 0)) await sleep(20);
        const drained = streams.filter((o) => o.ok && o.done);
        checks.push(check('in-flight streams drain', streams.length > 0 && drained.length === streams.length, `${drained.length}/${streams.length} streams in flight on ${victim.name} at SIGTERM ended with [DONE]; it exited ${code} after ${exitedAt - at} ms`));
        checks.push(check('graceful exit', code === 0, `exit code ${code}`));
        await takenOut('SIGTERM', at, async () => {
          if (restart) await victim.start();
        });
        if (!restart) return { recoveredAt: Date.now() };
        break;
      }
    }
    return { recoveredAt: await this.allUp() };
  }

  async #adminQuery(sql: string): Promise<void> {
    const c = new pg.Client({ connectionString: this.pg.adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  }

  /** Keyed calls answered by one replica, sent again to another: the same call, replayed. */
  async #idempotency(agents: Agent[], outcomes: Outcome[]): Promise<Check[]> {
    // answered by a replica with another one running to replay it on
    const keyed = outcomes.filter((o) => o.kind === 'keyed' && o.ok && o.key && o.body && o.server && this.replicas.some((r) => r.running && r.name !== o.server));
    // spread over the run: before, during and after the fault
    const step = Math.max(1, Math.floor(keyed.length / this.o.replays));
    const picked = keyed.filter((_, i) => i % step === 0).slice(0, this.o.replays);
    const wrong: string[] = [];
    for (const [i, o] of picked.entries()) {
      const others = this.replicas.filter((r) => r.name !== o.server && r.running);
      const target = others[i % others.length]!;
      const r = await send(target.origin, agents[o.agent]!, o.agent, 'keyed', -1, 0, 20_000, { key: o.key!, body: o.body! });
      if (!(r.status === 200 && r.callId === o.callId && r.error === 'replayed')) wrong.push(`${o.key} first ${o.callId} on ${o.server}, on ${target.name}: ${r.status} ${r.callId} ${r.error ?? 'not replayed'}`);
    }
    return [check('idempotency keys hold across replicas', picked.length > 0 && wrong.length === 0, `${picked.length - wrong.length}/${picked.length} keys answered by one replica replayed the same call on another${wrong.length ? `; ${wrong.slice(0, 3).join('; ')}` : ''}`)];
  }

  async #ledger(name: ScenarioName, owner: string, agents: Agent[], load: Load): Promise<Check[]> {
    // every replica flushes its batch (a dashboard read flushes the answering replica's meter)
    await sleep(300);
    for (const r of this.replicas.filter((x) => x.running)) await api(r.origin, owner, 'GET', '/v1/dashboard/savings');
    const acked = load.acked();
    const ledger = await checkLedger(this.balancer.origin, owner, agents, acked);
    // calls metered as answered that no client saw acknowledged: at most one per request that failed
    // after reaching a replica (killed before its answer left, a client that hung up, a drained stream…)
    const rows: { id: string; status: string }[] = [];
    for (const a of agents) rows.push(...(await agentCalls<{ id: string; status: string }>(this.balancer.origin, owner, a.id)));
    const unackedOk = rows.filter((r) => r.status === 'ok' && !acked.has(r.id));
    const failed = load.outcomes.filter((o) => !o.ok);
    // with no process killed and no stream cut, a failed request is never metered as answered
    const strict = name === 'gateway-wal-full' || name === 'postgres-restart' || name === 'vendor-stall';
    const allowed = strict ? 0 : failed.length;
    return [
      check('no acknowledged call lost', ledger.lost === 0, `${ledger.acknowledged} acknowledged, ${ledger.lost} missing from GET /v1/calls`),
      check('none double-counted', ledger.doubleCounted === 0, `${ledger.doubleCounted} listed twice; ${ledger.listed} calls listed`),
      check('totals add up', ledger.totalsMatch, ledger.totalsMatch ? 'dashboard calls, costs and savings = sum of the listed calls' : ledger.problems.filter((p) => /dashboard/.test(p)).join('; ')),
      check('nothing metered beyond what was sent', unackedOk.length <= allowed, `${unackedOk.length} calls metered as answered without an acknowledgement (allowed ${allowed}: ${strict ? 'no request here can be answered and lost' : `${failed.length} requests failed or were cut`})`),
    ];
  }
}

function check(name: string, pass: boolean, detail: string): Check {
  return { name, pass, detail };
}
