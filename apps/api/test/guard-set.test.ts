// The PII detectors against the held-out part of the labelled set (fixtures/pii/held-out.jsonl,
// written by make-set.ts; the detectors were tuned on tune.jsonl only): each kind keeps a
// precision and a recall floor set below what `npm run bench:guard` measures, so a change
// that loses ground fails here rather than in a tenant's prompt.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { measure } from '../src/guard/measure.ts';

const read = (part: string) => readFileSync(new URL(`./fixtures/pii/${part}.jsonl`, import.meta.url), 'utf8');

/** Floors per kind; measured on the held-out part when they were set (precision / recall) in the comment. */
const FLOORS: Record<string, { precision: number; recall: number }> = {
  email: { precision: 0.93, recall: 0.95 }, // 0.985 / 1.000
  phone: { precision: 0.9, recall: 0.88 }, // 0.956 / 0.942
  card: { precision: 0.9, recall: 0.95 }, // 0.976 / 1.000
  iban: { precision: 0.95, recall: 0.95 }, // 1.000 / 1.000
  national_id: { precision: 0.95, recall: 0.92 }, // 1.000 / 0.975
  secret: { precision: 0.95, recall: 0.91 }, // 1.000 / 0.966
};

describe('labelled PII set', () => {
  it('is big enough to say something: 400+ cases per part, every kind present, hand-written cases in both', () => {
    for (const part of ['tune', 'held-out']) {
      const examples = read(part)
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { text: string; pii: { kind: string; value: string }[]; source: string });
      expect(examples.length).toBeGreaterThanOrEqual(400);
      expect(examples.filter((e) => e.source === 'hand-written').length).toBeGreaterThanOrEqual(60);
      expect(examples.filter((e) => e.pii.length === 0).length).toBeGreaterThanOrEqual(150);
      for (const kind of Object.keys(FLOORS)) expect(examples.filter((e) => e.pii.some((p) => p.kind === kind)).length, `${part}: ${kind}`).toBeGreaterThanOrEqual(30);
      for (const e of examples) for (const p of e.pii) expect(e.text).toContain(p.value);
    }
  });

  it('holds each kind above its floor on the held-out part', () => {
    const scores = measure(read('held-out'));
    expect(scores.map((s) => s.kind).sort()).toEqual(Object.keys(FLOORS).sort());
    for (const s of scores) {
      expect(s.precision, `${s.kind} precision (tp ${s.tp}, fp ${s.fp})`).toBeGreaterThanOrEqual(FLOORS[s.kind]!.precision);
      expect(s.recall, `${s.kind} recall (tp ${s.tp}, fn ${s.fn})`).toBeGreaterThanOrEqual(FLOORS[s.kind]!.recall);
    }
  });
});
