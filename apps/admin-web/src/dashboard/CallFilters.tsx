// The calls view's filters the server applies: step, model, cache, outcome and a date range.
// The steps and models offered are those of the last 30 days' calls (the breakdown).
import { breakdownQuery } from './queries.ts';
import { useQuery } from './useQuery.ts';

export interface Filters {
  step: string;
  model: string;
  cache: '' | 'hit' | 'miss';
  outcome: '' | 'ok' | 'error';
  from: string;
  to: string;
}

export function CallFilters(props: { value: Filters; onChange: (f: Filters) => void; onSignedOut: () => void }) {
  const { data } = useQuery(breakdownQuery, { days: 30 }, props.onSignedOut);
  const steps = [...new Set((data?.breakdown.byStep ?? []).map((s) => s.step).filter((s): s is string => s !== null))].sort();
  const models = [...new Set((data?.breakdown.traffic ?? []).flatMap((p) => p.byModel.map((m) => m.model)))].sort();
  const f = props.value;
  const set = (patch: Partial<Filters>) => props.onChange({ ...f, ...patch });
  const any = Object.values(f).some((v) => v !== '');
  return (
    <div className="dash-filters call-filters" role="group" aria-label="Filters">
      <label className="dash-field small">
        Step
        <select value={f.step} onChange={(e) => set({ step: e.target.value })}>
          <option value="">All steps</option>
          {steps.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label className="dash-field small">
        Model
        <select value={f.model} onChange={(e) => set({ model: e.target.value })}>
          <option value="">All models</option>
          {models.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      </label>
      <label className="dash-field small">
        Cache
        <select value={f.cache} onChange={(e) => set({ cache: e.target.value as Filters['cache'] })}>
          <option value="">Any</option>
          <option value="hit">From cache</option>
          <option value="miss">Not cached</option>
        </select>
      </label>
      <label className="dash-field small">
        Outcome
        <select value={f.outcome} onChange={(e) => set({ outcome: e.target.value as Filters['outcome'] })}>
          <option value="">Any</option>
          <option value="ok">Answered</option>
          <option value="error">Failed</option>
        </select>
      </label>
      <label className="dash-field small">
        From
        <input type="date" value={f.from} onChange={(e) => set({ from: e.target.value })} />
      </label>
      <label className="dash-field small">
        To
        <input type="date" value={f.to} onChange={(e) => set({ to: e.target.value })} />
      </label>
      {any && (
        <button type="button" className="btn btn-ghost btn-small" onClick={() => props.onChange({ step: '', model: '', cache: '', outcome: '', from: '', to: '' })}>
          Clear filters
        </button>
      )}
    </div>
  );
}
