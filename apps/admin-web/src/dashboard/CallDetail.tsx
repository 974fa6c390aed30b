// One call's detail under its row in Calls: its tokens and money, every attempt at a vendor
// (model, vendor, latency, cost, why one failed), the policy that served it and the evidence it
// held when it was chosen (bar, retention bound, samples), its reasons as fields with the text
// as summary, the grades that concern it and what the guard found (kinds, counts and what it
// did, never the values; spec 2.7).
import { Badge } from '../admin/ui.tsx';
import type { CallRow } from './calls-csv.ts';
import { pct, usd } from './client.ts';
import { GradesAndGuard } from './GradesAndGuard.tsx';
import { callDetailQuery } from './queries.ts';
import { useQuery } from './useQuery.ts';

const KIND_LABEL: Record<string, string> = {
  decision: 'routed',
  baseline: 'baseline',
  unproven: 'unproven',
  exploration: 'exploring',
  bar: 'bar',
  pinned: 'pinned',
  failover: 'failover',
  cache: 'cache',
  pruning: 'pruning',
  check: 'check',
  tier: 'tier',
  mode: 'mode',
  note: 'note',
};

function Policy(props: { call: CallRow }) {
  const { policy, why } = props.call;
  const decision = why.find((w) => w.kind === 'decision');
  if (!policy) return <p className="muted small">Not routed: the model was named by the client{props.call.cache.hit ? ', answered from the cache' : ''}.</p>;
  return (
    <dl className="dash-facts" data-testid="call-policy">
      <dt>Policy</dt>
      <dd className="mono">{policy.key}</dd>
      <dt>Step</dt>
      <dd>
        {props.call.step} <Badge tone={policy.settled ? 'ok' : 'muted'}>{policy.settled ? 'settled' : 'learning'}</Badge>
      </dd>
      <dt>Quality bar</dt>
      <dd>{pct(policy.qualityBar)} of the baseline's</dd>
      <dt>Baseline</dt>
      <dd className="mono">{policy.baselineModel}</dd>
      <dt>Evidence then</dt>
      <dd data-testid="call-evidence">
        {decision && decision.bound !== null
          ? `retention ≥ ${pct(Math.max(0, decision.bound))} (lower bound) on ${decision.samples ?? '?'} samples`
          : why.some((w) => w.kind === 'baseline')
            ? 'the baseline itself: no cheaper policy was proven to hold the bar yet'
            : 'none recorded'}
      </dd>
    </dl>
  );
}

export function CallDetail(props: { call: CallRow; onSignedOut: () => void }) {
  const c = props.call;
  const { data, error } = useQuery(callDetailQuery, { id: c.id }, props.onSignedOut);
  const attempts = data?.call.attempts ?? null;
  return (
    <div className="dash-call-detail" data-testid="call-detail">
      <section>
        <h3>Tokens and money</h3>
        <dl className="dash-facts">
          <dt>Tokens</dt>
          <dd>
            {c.usage.promptTokens} in · {c.usage.completionTokens} out{c.usage.cachedTokens ? ` · ${c.usage.cachedTokens} cached` : ''}
            {c.usage.reasoningTokens ? ` · ${c.usage.reasoningTokens} reasoning` : ''}
            {c.usage.estimated ? ' (counted by the gateway)' : ''}
          </dd>
          <dt>Baseline</dt>
          <dd>{usd(c.cost.baseline)}</dd>
          <dt>Cost</dt>
          <dd>
            {usd(c.cost.actual)} <span className="muted small">(served {usd(c.cost.served)}, exploring {usd(c.cost.exploration)})</span>
          </dd>
          <dt>Saved</dt>
          <dd>{usd(c.saving)}</dd>
          <dt>Latency</dt>
          <dd>
            {c.latencyMs.toFixed(1)} ms <span className="muted small">(gateway {c.overheadMs.toFixed(2)} ms)</span>
          </dd>
        </dl>
      </section>
      <section>
        <h3>Policy behind it</h3>
        <Policy call={c} />
      </section>
      <section className="wide">
        <h3>Attempts</h3>
        {error && <p className="field-error small">{error}</p>}
        {!attempts && !error && <p className="muted small">Loading…</p>}
        {attempts && attempts.length === 0 && <p className="muted small">No vendor was asked (a cache hit, or refused before).</p>}
        {attempts && attempts.length > 0 && (
          <ol className="dash-attempts">
            {attempts.map((a) => (
              <li key={`${a.attempt}-${a.role}-${a.model}`} data-testid="call-attempt">
                <span className="mono">{a.model}</span> <span className="muted small">at {a.vendor}</span> <Badge tone={a.role === 'serve' ? 'info' : 'muted'}>{a.role}</Badge>{' '}
                <Badge tone={a.outcome === 'ok' ? 'ok' : 'danger'}>{a.status ?? a.outcome}</Badge>{' '}
                <span className="small tabular">
                  {a.latencyMs.toFixed(1)} ms · {a.promptTokens}+{a.completionTokens} tokens · {usd(a.cost)}
                </span>
                {a.error && <div className="field-error small">{a.error}</div>}
              </li>
            ))}
          </ol>
        )}
      </section>
      <section className="wide">
        <h3>Why</h3>
        <ul className="dash-reasons">
          {c.why.map((w, i) => (
            <li key={i} data-testid="call-reason">
              <Badge tone={w.kind === 'decision' ? 'ok' : w.kind === 'failover' ? 'warn' : 'muted'}>{KIND_LABEL[w.kind] ?? w.kind}</Badge>{' '}
              {w.policy && <span className="mono small">{w.policy}</span>}
              {w.bound !== null && <span className="small"> ≥ {pct(Math.max(0, w.bound))}</span>}
              {w.bar !== null && <span className="small"> bar {pct(w.bar)}</span>}
              {w.samples !== null && <span className="small"> · {w.samples} samples</span>}
              {w.others.length > 0 && <span className="small muted"> · {w.others.join(', ')}</span>}
              <div className="muted small">{w.summary}</div>
            </li>
          ))}
        </ul>
      </section>
      <GradesAndGuard findings={c.guardrailFindings} grades={c.grades} />
    </div>
  );
}
