// One workflow: its stage, each step with the policy it settled on and the evidence behind it,
// its events (drift, failover, resettled), discovery progress, its recordings, and its report
// and lockfile.
import { Badge, useNotify } from '../admin/ui.tsx';
import { gql, pct } from './client.ts';
import { Estimate } from './Estimate.tsx';
import { finalizeMutation, lockfileDownloadQuery, workflowDetailQuery } from './queries.ts';
import { useQuery } from './useQuery.ts';
import { RecordingsPanel } from './RecordingsPanel.tsx';
import { downloadText } from './calls-csv.ts';

interface Candidate {
  policy: string;
  n: number;
  retention: number;
  lcb: number;
  cost_share: number;
}

/** The candidates once each (the optimizer's view may list a policy under two headings), cheapest first. */
function distinct(list: readonly Candidate[]): Candidate[] {
  const seen = new Map<string, Candidate>();
  for (const c of list) if (!seen.has(c.policy)) seen.set(c.policy, c);
  return [...seen.values()].sort((a, b) => a.cost_share - b.cost_share);
}


export function WorkflowView(props: { id: string; onSignedOut: () => void }) {
  const { data, error, reload } = useQuery(workflowDetailQuery, { id: props.id }, props.onSignedOut);
  const notify = useNotify();
  if (error) return <p className="field-error">{error}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  const name = data.workflows.find((w) => w.id === props.id)?.name ?? props.id;
  const settled = data.steps.filter((s) => s.expected && s.settled).length;
  const expected = data.steps.filter((s) => s.expected).length;
  const lockfile = async () => {
    try {
      const r = await gql(lockfileDownloadQuery, { id: props.id });
      downloadText(`lockfile-${props.id}-v${r.lockfile.reportVersion}.json`, 'application/json', JSON.stringify(r.lockfile, null, 2));
    } catch (e) {
      notify('error', e instanceof Error ? e.message : String(e));
    }
  };
  const finalize = async () => {
    try {
      const r = await gql(finalizeMutation, { id: props.id });
      notify('ok', `Report version ${r.finalizeReport.version ?? ''} stored.`);
      reload();
    } catch (e) {
      notify('error', e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div className="dash-grid">
      <section className="dash-panel">
        <p className="small">
          <a href="#/overview">← Overview</a>
        </p>
        <h2 data-testid="workflow-title">
          {name} <Badge tone={data.workflowStage.stage === 'production' ? 'ok' : 'info'}>{data.workflowStage.stage}</Badge>
        </h2>
        <p className="muted small mono">{props.id}</p>
        <p className="muted" data-testid="settled-count">
          {settled} of {expected} steps settled
        </p>
        <div className="dash-actions">
          <button type="button" className="btn btn-ghost btn-small" onClick={() => void finalize()}>
            Finalize report
          </button>
          <button type="button" className="btn btn-primary btn-small" onClick={() => void lockfile()}>
            Download lockfile
          </button>
        </div>
      </section>
      <section className="dash-panel" aria-labelledby="steps">
        <h2 id="steps">Steps</h2>
        {data.steps.map((s) => {
          const candidates = distinct((Array.isArray(s.candidates) ? s.candidates : []) as Candidate[]);
          return (
            <details key={s.fingerprint} className="dash-step">
              <summary>
                <span className="strong">{s.label}</span> <Badge tone={s.settled ? 'ok' : 'muted'}>{s.settled ? 'settled' : 'learning'}</Badge> <span className="mono small">{s.chosen ?? '—'}</span>{' '}
                <span className="muted small">
                  {s.calls} calls · {s.probes} probes
                </span>
              </summary>
              {candidates.length === 0 ? (
                <p className="muted small">No candidate has evidence yet.</p>
              ) : (
                <div className="dash-table-wrap">
                  <table className="dash-table">
                    <thead>
                      <tr>
                        <th>Candidate</th>
                        <th className="num">Samples</th>
                        <th className="num" title="Share of the baseline's quality the candidate keeps: its lower bound to its estimate, never below 0">
                          Retention
                        </th>
                        <th className="num">Cost vs baseline</th>
                      </tr>
                    </thead>
                    <tbody>
                      {candidates.map((c) => (
                        <tr key={c.policy} data-testid="candidate">
                          <td className="mono small wrap">{c.policy}</td>
                          <td className="num">{c.n}</td>
                          <td className="num">
                            <Estimate retention={c.retention} lcb={c.lcb} />
                          </td>
                          <td className="num">{pct(c.cost_share)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  {candidates.some((c) => c.lcb < 0 || c.retention < 0) && (
                    <p className="muted small">* Too few or too poor samples: the estimate reads below 0 % and is shown as 0 % (no evidence the candidate holds).</p>
                  )}
                </div>
              )}
            </details>
          );
        })}
      </section>
      <section className="dash-panel" aria-labelledby="events">
        <h2 id="events">Events</h2>
        {data.events.length === 0 ? (
          <p className="muted small">No drift, failover or resettling in the last 30 days.</p>
        ) : (
          <ul className="dash-list">
            {data.events.map((e) => (
              <li key={e.id}>
                <Badge tone={e.kind === 'drift' ? 'warn' : 'info'}>{e.kind}</Badge> <span className="small muted">{new Date(e.at).toLocaleString()}</span> {e.from && <span className="mono small">{e.from}</span>}
                {e.to && <span className="mono small"> → {e.to}</span>} {e.reason && <span className="small">{e.reason}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="dash-panel" aria-labelledby="discovery">
        <h2 id="discovery">Discovery</h2>
        <p className="small">
          {data.discovery.enabled ? `On: ${data.discovery.state}` : 'Off'} · {data.discovery.steps.filter((s) => s.settled).length} of {data.discovery.steps.length} steps settled
        </p>
      </section>
      <RecordingsPanel id={props.id} onSignedOut={props.onSignedOut} />
    </div>
  );
}
