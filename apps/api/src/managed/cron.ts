// Five-field cron (minute hour day-of-month month day-of-week, UTC): `*`, numbers, ranges `a-b`,
// lists `a,b` and steps `*/n` or `a-b/n`. Day-of-month and day-of-week restrict together when
// both are given (either matches), as in classic cron. Sunday is 0 (7 too).
import { ApiError } from '../errors.ts';

const RANGES: [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

export interface Cron {
  fields: Set<number>[];
  /** Whether day-of-month and day-of-week were each restricted (not `*`). */
  domStar: boolean;
  dowStar: boolean;
}

function field(text: string, [lo, hi]: [number, number]): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) throw new Error(`"${part}" is not a cron field`);
    const from = m[1] === '*' ? lo : Number(m[2]);
    const to = m[1] === '*' ? hi : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? hi : from;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (from < lo || to > hi || from > to || step < 1) throw new Error(`"${part}" is outside ${lo}-${hi}`);
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

/** Parses a cron expression; 422 validation_failed (param `cron`) when it is not one. */
export function parseCron(expr: string): Cron {
  const parts = expr.trim().split(/\s+/);
  try {
    if (parts.length !== 5) throw new Error('a cron expression has five fields: minute hour day-of-month month day-of-week');
    const fields = parts.map((p, i) => field(p, RANGES[i]!));
    if (fields[4]!.has(7)) fields[4]!.add(0);
    return { fields, domStar: parts[2] === '*', dowStar: parts[4] === '*' };
  } catch (err) {
    throw new ApiError('validation_failed', `cron: ${(err as Error).message}.`, { param: 'cron' });
  }
}

function matches(c: Cron, d: Date): boolean {
  const [min, hour, dom, month, dow] = c.fields as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (!min.has(d.getUTCMinutes()) || !hour.has(d.getUTCHours()) || !month.has(d.getUTCMonth() + 1)) return false;
  const byDom = dom.has(d.getUTCDate());
  const byDow = dow.has(d.getUTCDay());
  if (c.domStar || c.dowStar) return byDom && byDow;
  return byDom || byDow;
}

/** The first minute strictly after `after` the expression names (within about four years), or null. */
export function nextTick(c: Cron, after: Date): Date | null {
  const d = new Date(after);
  d.setUTCSeconds(0, 0);
  for (let i = 0; i < 4 * 366 * 24 * 60; i++) {
    d.setUTCMinutes(d.getUTCMinutes() + 1);
    if (matches(c, d)) return d;
  }
  return null;
}

/** The most recent minute at or before `atOrBefore`, and not before `notBefore`, that the expression names; null when none. */
export function latestTick(c: Cron, atOrBefore: Date, notBefore: Date): Date | null {
  const d = new Date(atOrBefore);
  d.setUTCSeconds(0, 0);
  for (; d.getTime() >= notBefore.getTime(); d.setUTCMinutes(d.getUTCMinutes() - 1)) if (matches(c, d)) return new Date(d);
  return null;
}
