// Overview: what was saved and where it came from (per source and per step, in dollars, the
// exploration spend apart and explained), over time, traffic by model over time, and the
// workflows with how far each has settled.
import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Badge } from '../admin/ui.tsx';
import { pct, usd } from './client.ts';
import { breakdownQuery, overviewQuery } from './queries.ts';
import { useQuery } from './useQuery.ts';
import { Explanation, SourceTable, StepTable } from './MoneyBreakdown.tsx';
import { TrafficChart } from './TrafficChart.tsx';

const SOURCES = [
  { key: 'routing', label: 'Routing', color: '#3b5bdb' },
  { key: 'cache', label: 'Cache', color: '#1f7a4a' },
  { key: 'ttc', label: 'Pruning', color: '#e8590c' },
  { key: 'trace', label: 'Trace cache', color: '#862e9c' },
] as const;

function timeLabel(at: string, bucketSeconds: number): string {
  const d = new Date(at);
  return bucketSeconds >= 86_400 ? d.toLocaleDateString() : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: bucketSeconds < 60 ? '2-digit' : undefined });
}

export function Overview(props: { onSignedOut: () => void }) {
  const { data, error } = useQuery(overviewQuery, { days: 30 }, props.onSignedOut);
  const { data: money } = useQuery(breakdownQuery, { days: 30 }, props.onSignedOut);
  if (error) return <p className="field-error">{error}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  const s = data.savings;
  const series = data.savingsSeries;
  // running totals: the chart shows money saved so far, by source, and spend against the baseline
  let run = { routing: 0, cache: 0, ttc: 0, trace: 0, baseline: 0, actual: 0 };
  const points = series.points.map((p) => {
    run = {
      routing: run.routing + p.bySource.routing,
      cache: run.cache + p.bySource.cache,
      ttc: run.ttc + p.bySource.ttc,
      trace: run.trace + p.bySource.trace,
      baseline: run.baseline + p.baselineCost,
      actual: run.actual + p.actualCost,
    };
    return { t: timeLabel(p.at, series.bucketSeconds), ...run };
  });
  const fmt = (v: unknown) => usd(Number(v));
  return (
    <div className="dash-grid">
      <section className="dash-cards" aria-label="Totals">
        <div className="dash-card">
          <div className="muted small">Saved</div>
          <div className="dash-figure" data-testid="saved">
            {usd(s.saving)}
          </div>
          <div className="muted small">{s.baselineCost > 0 ? `${pct(s.saving / s.baselineCost)} of the baseline` : 'no calls yet'}</div>
        </div>
        <div className="dash-card">
          <div className="muted small">Spend</div>
          <div className="dash-figure" data-testid="spend">
            {usd(s.actualCost)}
          </div>
          <div className="muted small">
            baseline {usd(s.baselineCost)}
            {money && ` · exploring ${usd(money.breakdown.totals.explorationCost)} (30 days)`}
          </div>
        </div>
        <div className="dash-card">
          <div className="muted small">Calls</div>
          <div className="dash-figure">{s.calls.toLocaleString()}</div>
          <div className="muted small">
            routing {usd(s.bySource.routing)} · cache {usd(s.bySource.cache)}
          </div>
        </div>
      </section>
      {money && (
        <section className="dash-panel" aria-labelledby="where-money">
          <h2 id="where-money">Where the saving came from (last 30 days)</h2>
          <Explanation b={money.breakdown} />
          <SourceTable b={money.breakdown} />
          <h3 className="dash-sub">Per step</h3>
          <StepTable b={money.breakdown} />
        </section>
      )}
      {money && (
        <section className="dash-panel" aria-labelledby="traffic">
          <h2 id="traffic">Traffic by model, and exploration spend</h2>
          <TrafficChart b={money.breakdown} />
        </section>
      )}
      <section className="dash-panel" aria-labelledby="chart-savings">
        <h2 id="chart-savings">Savings over time, by source</h2>
        {points.length === 0 ? (
          <p className="muted">No calls in the last 30 days.</p>
        ) : (
          <div className="dash-chart" data-testid="savings-chart">
            <ResponsiveContainer width="100%" height={260}>
              <AreaChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: 4 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="#e3e6eb" />
                <XAxis dataKey="t" tick={{ fontSize: 11 }} minTickGap={24} />
                <YAxis tickFormatter={fmt} tick={{ fontSize: 11 }} width={64} />
                <Tooltip formatter={fmt} />
                <Legend />
                {SOURCES.map((x) => (
                  <Area key={x.key} type="monotone" dataKey={x.key} name={x.label} stackId="saved" stroke={x.color} fill={x.color} fillOpacity={0.25} isAnimationActive={false} />
                ))}
              </AreaChart>
            </ResponsiveContainer>
          </div>
        )}
      </section>
      <section className="dash-panel" aria-labelledby="chart-spend">
        <h2 id="chart-spend">Spend against the baseline</h2>
        {points.length > 0 && (
          <div className="dash-chart">
            <ResponsiveContainer width="100%" height={220}>
              <LineChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: 4 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="#e3e6eb" />
                <XAxis dataKey="t" tick={{ fontSize: 11 }} minTickGap={24} />
                <YAxis tickFormatter={fmt} tick={{ fontSize: 11 }} width={64} />
                <Tooltip formatter={fmt} />
                <Legend />
                <Line type="monotone" dataKey="baseline" name="Baseline would have cost" stroke="#8b94a1" dot={false} isAnimationActive={false} />
                <Line type="monotone" dataKey="actual" name="Spent, exploring included" stroke="#3b5bdb" dot={false} isAnimationActive={false} />
              </LineChart>
            </ResponsiveContainer>
          </div>
        )}
      </section>
      <section className="dash-panel" aria-labelledby="workflows">
        <h2 id="workflows">Workflows</h2>
        <ul className="dash-list">
          {data.workflows.map((w) => (
            <li key={w.id}>
              <a href={`#/workflows/${encodeURIComponent(w.id)}`} className="strong">
                {w.name}
              </a>{' '}
              <Badge tone={w.stage === 'production' ? 'ok' : w.ready ? 'info' : 'muted'}>{w.stage}</Badge>{' '}
              <span className="muted">
                {w.stepsSettled} of {w.stepsExpected} steps settled
              </span>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
