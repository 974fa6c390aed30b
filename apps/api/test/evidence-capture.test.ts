// Evidence obeys capture (issue 30): the optimizer's probe evidence keeps the answers' texts
// only where the tenant's capture keeps content (`full`); otherwise only what agreement
// compares (the short normalized form, or a hash of a long one). With capture `none`, after
// 100 routed calls with probes, no answer text is anywhere in the database (a dump of it is
// searched); the retention sweep strips the texts capture `full` kept once its retention
// passes, and those of rows an earlier version wrote whatever capture said.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JUDGE_RUBRIC } from '../src/optimizer/judge.ts';
import { answerKey, SHORT_FORM_MAX } from '../src/optimizer/normalize.ts';
import { StepEvidence, storedProbe, type Probe } from '../src/optimizer/evidence.ts';
import { authed, onPostgres, signup, testDatabase, type TestDatabase } from './support/gateway.ts';
import { warmStep } from './support/optimizer.ts';
import { routeOnMockOpenAI, startRig, type Rig } from './support/vendor.ts';

/** Every answer a vendor gives names this word, which nothing else the gateway stores contains. */
const MARK = 'vermilion';
const answerTo = (question: string) => `The ledger for ${question} reconciles: ${MARK}-otter confirms forty-two entries after the quarterly audit.`;

let rig: Rig;
let db: TestDatabase;

beforeAll(async () => {
  db = await testDatabase();
  const grader = (messages: ReadonlyArray<{ role: string; content?: unknown }>) => {
    if (messages[0]?.content === JUDGE_RUBRIC) return '{"score": 1, "reason": "fine"}';
    const last = messages[messages.length - 1]?.content;
    return answerTo(typeof last === 'string' ? last : 'a question');
  };
  rig = await startRig({ database: db, env: { CIRCUIT_FAILURES: '1000' }, vendorOptions: { grader } });
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
});
afterAll(async () => {
  await rig?.close();
  await db?.drop();
});

async function putCapture(key: string, body: Record<string, unknown>): Promise<void> {
  const r = await fetch(`${rig.gw.url}/v1/settings/capture`, { method: 'PUT', headers: authed(key), body: JSON.stringify(body) });
  expect(r.status, await r.clone().text()).toBe(200);
}

async function ask(key: string, step: string, i: number): Promise<void> {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(key),
    body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: `account ${i}` }], optimizer: { step: { id: step } } }),
  });
  expect(r.status, await r.clone().text()).toBe(200);
  expect(await r.text()).toContain(MARK); // the client gets the answer; only the stores must not keep it
  await rig.gw.learned(); // the probes it leaves run after the answer
}

const sql = async (q: string, params: unknown[] = []) => (await rig.gw.services.db.em().getConnection().execute(q, params)) as Record<string, any>[];

async function probes(accountId: string): Promise<Probe[]> {
  await rig.gw.services.meter.flush();
  const rows = await sql(`select sample from evidence where account_id = ? and kind = 'probe'`, [accountId]);
  return rows.map((r) => (typeof r.sample === 'string' ? JSON.parse(r.sample) : r.sample) as Probe);
}

/** The lines of a dump that hold `word` (none, when the stores kept no answer). */
const linesWith = (dumped: string, word: string) => dumped.split('\n').filter((l) => l.toLowerCase().includes(word.toLowerCase()));

/** The whole database as text: pg_dump on PostgreSQL (else every table's rows), every table's rows on the embedded store. */
async function dump(): Promise<string> {
  await rig.gw.services.meter.flush();
  if (onPostgres && db.url) {
    const out = await promisify(execFile)('pg_dump', ['--data-only', '--no-owner', db.url], { maxBuffer: 512 * 1024 * 1024 }).catch(() => null);
    if (out) return out.stdout;
  }
  const tables = await sql(`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`);
  expect(tables.length).toBeGreaterThan(10);
  const parts: string[] = [];
  for (const { table_name } of tables) {
    for (const r of await sql(`select t::text as row from "${table_name}" t`)) parts.push(`${table_name}: ${r.row}`);
  }
  return parts.join('\n');
}

describe('evidence keeps answer texts only as capture allows', () => {
  it('with capture none, 100 routed calls with probes leave no answer text in any table', async () => {
    const t = await signup(rig.gw, 'No Capture');
    const tenant = { ...rig.tenant, ...t };
    expect((await routeOnMockOpenAI({ ...rig, tenant })).status).toBe(200);
    await putCapture(t.api_key, { content: 'none' });
    warmStep({ ...rig, tenant }, 'ledger'); // traffic enough for the step to explore
    for (let i = 0; i < 100; i++) await ask(t.api_key, 'ledger', i);

    const kept = await probes(t.account_id);
    expect(kept.length).toBeGreaterThan(0); // the calls were probed: evidence was written
    for (const p of kept) {
      expect(p.baselineText).toBeUndefined();
      expect(p.baselineKey).toMatch(/^#/); // a long answer: its hash only
      expect(p.baselineLong).toBe(true);
      for (const a of Object.values(p.answers)) {
        expect(a.text).toBeUndefined();
        expect(a.key).toBe(p.baselineKey); // the same answer: agreement still reads it
      }
    }
    const text = await dump();
    expect(text).toContain(t.account_id); // the dump holds the tenant's rows
    expect(linesWith(text, MARK)).toEqual([]);
    expect(linesWith(text, 'reconciles')).toEqual([]);
  });

  it('keeps a short answer only as its normalized form, and a long one as a hash', () => {
    expect(answerKey('  B) ')).toBe('=B');
    expect(answerKey('Paris.')).toBe('=paris');
    const long = answerTo('x');
    expect(answerKey(long)).toMatch(/^#[\w-]{43}$/);
    expect(answerKey(long)).not.toContain(MARK);
    expect(answerKey(long.toUpperCase())).toBe(answerKey(long)); // agreement ignores case, so does the key
    expect(answerKey('x'.repeat(SHORT_FORM_MAX + 1))).toMatch(/^#/);
    expect(answerKey('mail me at jane@example.com')).toMatch(/^#/); // a short form that holds personal data: hashed
  });

  it('reads stored evidence as it read the texts: the same agreement, the same estimates', () => {
    const mk = (i: number): Probe => ({
      at: i,
      baselineScore: 1,
      baselineText: i % 3 ? 'Answer: B' : 'The answer is long, a paragraph of prose\nthat runs over lines and past the short form',
      baselineCostMicros: 100,
      answers: { small: { text: i % 4 ? 'b.' : 'C', score: i % 4 ? null : 0.2, costMicros: 10 }, tiny: { text: 'B', score: null, costMicros: 5 } },
    });
    const withText = new StepEvidence();
    const stored = new StepEvidence();
    for (let i = 0; i < 40; i++) {
      withText.addProbe(mk(i));
      const p = storedProbe(mk(i), () => null);
      expect(JSON.stringify(p)).not.toContain('runs over lines');
      stored.addProbe(JSON.parse(JSON.stringify(p)) as Probe);
    }
    for (const policy of [{ kind: 'model', model: 'small' }, { kind: 'model', model: 'tiny' }, { kind: 'gate', a: 'small', b: 'tiny' }] as const) {
      expect(stored.stats(policy, 'big')).toEqual(withText.stats(policy, 'big'));
    }
    expect(stored.freeForm()).toBe(withText.freeForm());
  });

  it('capture full keeps the texts until its retention passes; the sweep then strips them, and strips old rows whatever their age', async () => {
    const t = await signup(rig.gw, 'Full Capture');
    const tenant = { ...rig.tenant, ...t };
    expect((await routeOnMockOpenAI({ ...rig, tenant })).status).toBe(200);
    await putCapture(t.api_key, { content: 'full', retention_days: 1, redact_pii: false });
    warmStep({ ...rig, tenant }, 'kept');
    for (let i = 0; i < 30; i++) await ask(t.api_key, 'kept', i);
    const before = await probes(t.account_id);
    expect(before.length).toBeGreaterThan(0);
    for (const p of before) {
      expect(p.baselineText).toContain(MARK);
      expect(p.baselineKey).toBe(answerKey(p.baselineText!));
    }
    // within the retention, the sweep keeps them
    await rig.gw.services.recordings.sweepEvidence(new Date());
    expect((await probes(t.account_id)).every((p) => p.baselineText?.includes(MARK))).toBe(true);

    // a row an earlier version wrote (texts only) for a tenant whose capture keeps none: swept at once
    const legacy = await signup(rig.gw, 'Legacy');
    const old: Probe = { at: Date.now(), baselineScore: 1, baselineText: answerTo('old'), baselineCostMicros: 100, answers: { small: { text: answerTo('OLD'), score: null, costMicros: 10 } }, unpruned: { text: answerTo('old '), score: null } };
    await sql(`insert into evidence (id, account_id, workflow_id, fingerprint, release, kind, created_at, sample) values (?, ?, ?, 'fp', '', 'probe', now(), ?)`, [randomUUID(), legacy.account_id, legacy.workflow_id, JSON.stringify(old)]);

    // two days on: past the full tenant's retention
    const swept = await rig.gw.services.recordings.sweepEvidence(new Date(Date.now() + 2 * 86_400_000));
    expect(swept).toBeGreaterThanOrEqual(before.length + 1);
    const after = await probes(t.account_id);
    expect(after.length).toBe(before.length);
    for (const [i, p] of after.entries()) {
      expect(p.baselineText).toBeUndefined();
      expect(JSON.stringify(p)).not.toContain(MARK);
      expect(p.baselineKey).toBe(before.find((b) => b.at === p.at && b.baselineCostMicros === p.baselineCostMicros)?.baselineKey ?? after[i]!.baselineKey);
    }
    const [stripped] = await probes(legacy.account_id);
    expect(JSON.stringify(stripped)).not.toContain(MARK);
    expect(stripped!.baselineKey).toBe(answerKey(old.baselineText!));
    expect(stripped!.answers.small!.key).toBe(stripped!.baselineKey); // the same answer but for case: still agrees
    expect(stripped!.unpruned).toEqual({ key: stripped!.baselineKey, score: null });
    // past the retention the recordings capture full kept are gone too: no answer text is left
    await rig.gw.services.recordings.sweep(new Date(Date.now() + 2 * 86_400_000));
    expect(linesWith(await dump(), MARK)).toEqual([]);
  });
});
