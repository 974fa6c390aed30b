// A step's evidence over a long life: outcomes keep arriving for months, so what it keeps
// and what each decision reads must stay bounded, and the estimates must follow the newest
// samples once the window is full.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_WINDOW, StepEvidence, mean, sd, type Probe } from '../src/optimizer/evidence.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signup, startGateway, testDatabase, type TestGateway } from './support/gateway.ts';

const BASELINE = 'big-model';
const CHEAP = { kind: 'model', model: 'small-model' } as const;
const CHEAP_KEY = 'model:small-model';

function outcome(at: number, policy: string, score: number) {
  return { at, policy, score, source: 'outcome' as const };
}

describe('step evidence', () => {
  it('estimates outcome retention as the ratio of the two means, with the delta-method bound', () => {
    const e = new StepEvidence();
    const base = [1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1];
    const cheap = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1];
    base.forEach((x, i) => e.addServed(outcome(i, `model:${BASELINE}`, x), true));
    cheap.forEach((x, i) => e.addServed(outcome(i, CHEAP_KEY, x), false));
    const st = e.stats(CHEAP, BASELINE);
    const mb = mean(base);
    const r = mean(cheap) / mb;
    const seO = Math.max(sd(cheap, mean(cheap)), 0.05) / Math.sqrt(cheap.length);
    const seB = Math.max(sd(base, mb), 0.05) / Math.sqrt(base.length);
    const se = Math.sqrt(seO * seO + r * r * seB * seB) / mb;
    expect(st.byOutcome).toEqual({ retention: r, n: cheap.length });
    expect(st.retention).toBeCloseTo(r, 12);
    expect(st.lcb).toBeCloseTo(r - se, 12);
    expect(e.baselineMeanBy('outcome')).toBeCloseTo(mb, 12);
  });

  it('reads the outcomes alone where a proxy that disagrees with them, if not beyond both errors, would widen their bound', () => {
    const e = new StepEvidence();
    const base = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const cheap = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? 0 : 1));
    base.forEach((x, i) => e.addServed(outcome(i, `model:${BASELINE}`, x), true));
    cheap.forEach((x, i) => e.addServed(outcome(i, CHEAP_KEY, x), false));
    const alone = e.stats(CHEAP, BASELINE);
    // three judge grades, all right: an estimate far over the outcomes' on three samples
    const fresh = new StepEvidence();
    base.forEach((x, i) => fresh.addServed(outcome(i, `model:${BASELINE}`, x), true));
    cheap.forEach((x, i) => fresh.addServed(outcome(i, CHEAP_KEY, x), false));
    for (let i = 0; i < 10; i++) fresh.addServed({ at: 100 + i, policy: `model:${BASELINE}`, score: i % 2, source: 'judge' }, true);
    for (let i = 0; i < 3; i++) fresh.addServed({ at: 200 + i, policy: CHEAP_KEY, score: 1, source: 'judge' }, false);
    const st = fresh.stats(CHEAP, BASELINE);
    expect(st.byJudge?.n).toBe(3);
    expect(st.byJudge!.retention).toBeGreaterThan(alone.retention + 0.3);
    // combined, the two would read a bound wider than the outcomes' own: the outcomes stand alone
    expect(st.retention).toBeCloseTo(alone.retention, 12);
    expect(st.lcb).toBeCloseTo(alone.lcb, 12);
    expect(st.n).toBe(cheap.length);
  });

  it("undoes the judge's errors on a served answer's grade as on a probe's: both means are pulled toward a half alike", () => {
    // a judge wrong one time in ten: the baseline, right 9 times in 10, reads 0.82; a candidate right 7 times in 10 reads 0.66
    const e = new StepEvidence();
    e.setSharedJudgeError(0.1);
    for (let i = 0; i < 50; i++) e.addServed({ at: i, policy: `model:${BASELINE}`, score: i < 41 ? 1 : 0, source: 'judge' }, true);
    for (let i = 0; i < 50; i++) e.addServed({ at: 100 + i, policy: CHEAP_KEY, score: i < 33 ? 1 : 0, source: 'judge' }, false);
    const band = e.baselineBand();
    const st = e.stats(CHEAP, BASELINE);
    // the raw difference (0.66 − 0.82) is the true one (0.7 − 0.9) shrunk by 1 − 2e
    expect(st.byJudge!.retention).toBeCloseTo(1 + (0.66 - 0.82) / 0.8 / band.lo, 12);
    // read raw, the candidate would look four points better than it is (0.7 / 0.9 ≈ 0.78)
    expect(st.byJudge!.retention).toBeLessThan(0.79);
  });

  it("links a call's outcome to its probe whichever comes first (learning runs after the answer, so the outcome may lead)", () => {
    const probe = (call: string): Probe => ({ at: 1, policy: CHEAP_KEY, call, awaitsOutcome: true, judgeCostMicros: 0, baselineScore: null, baselineText: 'a', baselineCostMicros: 100, answers: { 'small-model': { text: 'b', score: null, costMicros: 10 } } });
    const e = new StepEvidence();
    const late = probe('call-late');
    e.addProbe(late);
    e.addServed({ ...outcome(1, `model:${BASELINE}`, 0.5), call: 'call-late' }, true);
    expect(late.outcome).toBe(0.5);
    e.addServed({ ...outcome(2, `model:${BASELINE}`, 0.25), call: 'call-early' }, true);
    const early = probe('call-early');
    e.addProbe(early);
    expect(early.outcome).toBe(0.25);
    const other = probe('call-without-outcome');
    e.addProbe(other);
    expect(other.outcome).toBeUndefined();
  });

  it('keeps only the newest window of samples per policy and for the baseline, and estimates from it', () => {
    const e = new StepEvidence();
    const total = SAMPLE_WINDOW * 3;
    // the cheap model was broken for its first samples and is fine now; the baseline always was
    for (let i = 0; i < total; i++) {
      e.addServed(outcome(i, `model:${BASELINE}`, 1), true);
      e.addServed(outcome(i, CHEAP_KEY, i < SAMPLE_WINDOW * 1.5 ? 0 : 1), false);
    }
    expect(e.servedCount).toBe(2 * total);
    const kept = e.recent(CHEAP_KEY, 0);
    expect(kept.length).toBeGreaterThanOrEqual(SAMPLE_WINDOW);
    expect(kept.length).toBeLessThanOrEqual(SAMPLE_WINDOW * 1.5);
    expect(kept.at(-1)!.at).toBe(total - 1);
    expect(e.served.length).toBeLessThanOrEqual(SAMPLE_WINDOW * 1.5);
    // every kept sample is from after the breakage: retention is the present one
    expect(kept.every((s) => s.score === 1)).toBe(true);
    expect(e.stats(CHEAP, BASELINE).byOutcome?.retention).toBe(1);
    expect(e.baselineMeanBy('outcome')).toBe(1);
  });

  it('drops a drifted policy from every view of the served samples', () => {
    const e = new StepEvidence();
    for (let i = 0; i < 30; i++) e.addServed(outcome(i, CHEAP_KEY, 1), false);
    e.forgetModels(['small-model'], [CHEAP_KEY]);
    expect(e.recent(CHEAP_KEY, 0)).toEqual([]);
    expect(e.served).toEqual([]);
    expect(e.stats(CHEAP, BASELINE).n).toBe(0);
  });
});

describe('evidence other replicas wrote', { timeout: 60_000 }, () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('is loaded into the step, while the ids held to skip duplicates stay bounded by the load window', async () => {
    const t = await signup(gw);
    const db = gw.services.db.em().getConnection();
    const insert = (id: string, at: Date, score: number) =>
      db.execute(
        `insert into evidence (id, account_id, workflow_id, fingerprint, release, kind, created_at, sample) values (?, ?, ?, 'fp-replica', '', 'served', ?, ?)`,
        [id, t.account_id, t.workflow_id, at.toISOString(), JSON.stringify(outcome(at.getTime(), CHEAP_KEY, score))],
      );
    const old = Date.now() - 10 * 60_000;
    for (let i = 0; i < 200; i++) await insert(`ev_old_${i}`, new Date(old + i), 1);
    await insert('ev_new', new Date(), 1);
    const step = () => gw.services.optimizer.stepStates(t.workflow_id).find((s) => s.fingerprint === 'fp-replica');
    await expect.poll(() => step()?.served, { timeout: 10_000 }).toBe(201);
    // the old rows can never be returned by a load again: their ids are not kept
    expect(gw.services.optimizer.seenRows).toBeLessThan(50);
  });
});

describe('evidence at start', { timeout: 120_000 }, () => {
  it('is all in memory before the first decision, however many batches it takes', async () => {
    const database = await testDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'optimizer-evidence-'));
    const env = { ADMIN_KEY: 'admin-key-for-the-evidence-restart-test' };
    try {
      const first = await startGateway({ database, dataDir, env });
      const t = await signup(first);
      const rows = 25_000; // more than one load batch (20,000)
      await first.services.db.em().getConnection().execute(
        `insert into evidence (id, account_id, workflow_id, fingerprint, release, kind, created_at, sample)
         select 'ev_boot_' || i, ?, ?, 'fp-boot', '', 'served', now() - interval '1 hour' + i * interval '1 millisecond',
                jsonb_build_object('at', i, 'policy', 'model:small-model', 'score', 1, 'source', 'outcome')
           from generate_series(1, ${rows}) as i`,
        [t.account_id, t.workflow_id],
      );
      await first.stop();
      const second = await startGateway({ database, dataDir, env });
      try {
        // read right after start, before any poll could have run
        expect(second.services.optimizer.stepStates(t.workflow_id).find((s) => s.fingerprint === 'fp-boot')?.served).toBe(rows);
      } finally {
        await second.stop();
      }
    } finally {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('step states of superseded releases', () => {
  it('leave memory a day after a newer release of the step took over, and only then', async () => {
    const { Optimizer } = await import('../src/optimizer/optimizer.ts');
    const o = new Optimizer({} as never, {} as never);
    const step = (release: string, fingerprint = 'fp') => ({ accountId: 'acct', workflowId: 'wf', fingerprint, label: 'plan', release });
    const input = (k: ReturnType<typeof step>) => ({ step: k, baseline: 'big', cheaper: ['small'], floor: 0.95, allowGates: false, draw: 0.9 });
    o.decide(input(step('v1')));
    o.decide(input(step('v1', 'other-step'))); // another step, only ever on v1: not superseded
    await new Promise((r) => setTimeout(r, 5));
    o.decide(input(step('v2')));
    const releases = () => o.stepStates('wf').map((s) => `${s.fingerprint}`).sort();
    expect(releases()).toEqual(['fp', 'fp', 'other-step']);
    // v2 took over, but not for a day yet
    expect(o.sweepSuperseded(Date.now() + 3_600_000)).toBe(0);
    // a day later v1's state of the step goes; v2's stays, and so does the other step's
    expect(o.sweepSuperseded(Date.now() + 25 * 3_600_000)).toBe(1);
    expect(releases()).toEqual(['fp', 'other-step']);
  });
});
