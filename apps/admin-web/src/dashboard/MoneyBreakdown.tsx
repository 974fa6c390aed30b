// Where the money went: the saving per source and per step in dollars, with the exploration
// spend apart and explained (it is why a source's saving can read above the total saved).
import type { BreakdownQuery } from '../gql/graphql.ts';
import { usd } from './client.ts';

type Breakdown = BreakdownQuery['breakdown'];

const SOURCE_LABEL: Record<string, string> = {
  routing: 'Routing to cheaper models',
  cache: 'Cache',
  ttc: 'Pruning',
  trace: 'Trace cache',
  none: 'Saved nothing (baseline served)',
};

export function Explanation(props: { b: Breakdown }) {
  const t = props.b.totals;
  const none = props.b.bySource.find((s) => s.source === 'none');
  const positive = props.b.bySource.filter((s) => s.source !== 'none').reduce((sum, s) => sum + Math.round(s.saving * 1e6), 0) / 1e6;
  return (
    <p className="small" data-testid="money-explained">
      Saved {usd(t.saving)} = what the baseline would have cost ({usd(t.baselineCost)}) − what was spent ({usd(t.actualCost)}). The spend includes{' '}
      <strong>{usd(t.explorationCost)} of exploration</strong>: probes of cheaper models and judge grades that prove a cheaper model holds each step's quality bar before traffic moves to it.
      {none && none.saving < 0
        ? ` The sources saved ${usd(positive)}; calls the baseline served (while a step was still learning, or where nothing cheaper holds) saved nothing and carried ${usd(-none.saving)} of that exploration, so the total reads lower.`
        : ''}
    </p>
  );
}

export function SourceTable(props: { b: Breakdown }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table" data-testid="saving-by-source">
        <thead>
          <tr>
            <th>Source</th>
            <th className="num">Calls</th>
            <th className="num">Exploration</th>
            <th className="num">Saved</th>
          </tr>
        </thead>
        <tbody>
          {props.b.bySource.map((s) => (
            <tr key={s.source}>
              <td>{SOURCE_LABEL[s.source] ?? s.source}</td>
              <td className="num">{s.calls.toLocaleString()}</td>
              <td className="num tabular">{usd(s.explorationCost)}</td>
              <td className="num tabular">{usd(s.saving)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function StepTable(props: { b: Breakdown }) {
  const multi = new Set(props.b.byStep.map((s) => s.agent)).size > 1;
  return (
    <div className="dash-table-wrap">
      <table className="dash-table" data-testid="saving-by-step">
        <thead>
          <tr>
            <th>Step</th>
            <th className="num">Calls</th>
            <th className="num">Spent</th>
            <th className="num">Exploration</th>
            <th className="num">Saved</th>
          </tr>
        </thead>
        <tbody>
          {props.b.byStep.map((s) => (
            <tr key={`${s.agent}|${s.fingerprint ?? ''}`}>
              <td>
                {s.step ?? <span className="muted">not routed</span>}
                {multi && <div className="muted small">{s.agentName}</div>}
              </td>
              <td className="num">{s.calls.toLocaleString()}</td>
              <td className="num tabular">{usd(s.actualCost)}</td>
              <td className="num tabular">{usd(s.explorationCost)}</td>
              <td className="num tabular">{usd(s.saving)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
