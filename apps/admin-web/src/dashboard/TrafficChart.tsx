// Traffic by model over time (calls per bucket, stacked by the model that served), with the
// exploration spend drawn as a series of its own on the right-hand axis.
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { BreakdownQuery } from '../gql/graphql.ts';
import { usd } from './client.ts';

const COLORS = ['#3b5bdb', '#1f7a4a', '#e8590c', '#862e9c', '#0c8599', '#c2255c', '#5c940d', '#495057'];

function label(at: string, bucketSeconds: number): string {
  const d = new Date(at);
  return bucketSeconds >= 86_400 ? d.toLocaleDateString() : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: bucketSeconds < 60 ? '2-digit' : undefined });
}

export function TrafficChart(props: { b: BreakdownQuery['breakdown'] }) {
  const { traffic, bucketSeconds } = props.b;
  const models = [...new Set(traffic.flatMap((p) => p.byModel.map((m) => m.model)))].sort();
  const points = traffic.map((p) => ({ t: label(p.at, bucketSeconds), exploration: p.explorationCost, ...Object.fromEntries(p.byModel.map((m) => [m.model, m.calls])) }));
  if (points.length === 0) return <p className="muted">No calls in the last {props.b.days} days.</p>;
  return (
    <div className="dash-chart" data-testid="traffic-chart">
      <ResponsiveContainer width="100%" height={260}>
        <ComposedChart data={points} margin={{ top: 8, right: 4, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e3e6eb" />
          <XAxis dataKey="t" tick={{ fontSize: 11 }} minTickGap={24} />
          <YAxis yAxisId="calls" tick={{ fontSize: 11 }} width={40} allowDecimals={false} />
          <YAxis yAxisId="usd" orientation="right" tickFormatter={(v: number) => usd(v)} tick={{ fontSize: 11 }} width={64} />
          <Tooltip formatter={(v, name) => (name === 'Exploration spend' ? usd(Number(v)) : `${String(v)} calls`)} />
          <Legend />
          {models.map((m, i) => (
            <Bar key={m} yAxisId="calls" dataKey={m} name={m} stackId="calls" fill={COLORS[i % COLORS.length]} isAnimationActive={false} />
          ))}
          <Line yAxisId="usd" type="linear" dataKey="exploration" name="Exploration spend" stroke="#c22f2f" strokeDasharray="4 3" dot={false} isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
