// Part of a call's detail: what the guard found (kinds, counts and what it did, never the
// values) and the grades that concern the call (spec 2.7).
import { Badge } from '../admin/ui.tsx';

export interface Finding {
  type: string;
  kind: string;
  count: number;
  action: string;
}

type Grade =
  | { kind: 'probe'; policy: string | null; baseline_score: number | null; scores: Record<string, number | null> }
  | { kind: 'served'; policy: string | null; score: number | null; source: string }
  | { kind: 'judge'; pair: string | null };

const score = (x: number | null | undefined) => (typeof x === 'number' ? x.toFixed(2) : '—');
const ACTION_TONE: Record<string, 'info' | 'warn' | 'danger'> = { redacted: 'info', flagged: 'warn', blocked: 'danger' };

function gradeLine(g: Grade): string {
  if (g.kind === 'probe') {
    const models = Object.entries(g.scores ?? {}).map(([m, s]) => `${m} ${s === null ? 'agreed' : score(s)}`);
    return `Probe${g.policy ? ` of ${g.policy}` : ''}: baseline ${score(g.baseline_score)}${models.length ? `; ${models.join(', ')}` : ''}`;
  }
  if (g.kind === 'served') return `Served answer${g.policy ? ` (${g.policy})` : ''} graded ${score(g.score)} by the ${g.source}`;
  return `Judge check${g.pair ? ` (${g.pair})` : ''}`;
}

export function GradesAndGuard(props: { findings: readonly Finding[]; grades: readonly unknown[] }) {
  return (
    <>
      <section>
        <h3>Guard</h3>
        {props.findings.length === 0 ? (
          <p className="muted small">Nothing found.</p>
        ) : (
          <ul className="dash-findings">
            {props.findings.map((f) => (
              <li key={`${f.type}:${f.kind}`} data-testid="guard-finding">
                <span className="mono">{f.kind}</span> <span className="muted small">({f.type === 'pii' ? 'PII' : 'injection'})</span> × {f.count} <Badge tone={ACTION_TONE[f.action] ?? 'muted'}>{f.action}</Badge>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section>
        <h3>Grades</h3>
        {props.grades.length === 0 ? (
          <p className="muted small">No grades for this call.</p>
        ) : (
          <ul className="dash-findings">
            {props.grades.map((g, i) => (
              <li key={i} className="small" data-testid="call-grade">
                {gradeLine(g as Grade)}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
