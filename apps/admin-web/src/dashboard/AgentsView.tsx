// Managed agents: each agent with its latest runs (status, input, when), a run started from
// here, its schedule (seen, set and removed here), and a link to each run's page (its live
// events, the actions waiting for approval, and Cancel).
import { useState, type FormEvent } from 'react';
import { GqlError } from '../graphql-client.ts';
import { gql } from './client.ts';
import { managedAgentsQuery, startRunMutation } from './queries.ts';
import { ScheduleControls } from './ScheduleControls.tsx';
import { useQuery } from './useQuery.ts';

export const runHref = (id: string) => `#/runs/${encodeURIComponent(id)}`;

function StartRun(props: { agent: { id: string; name: string } }) {
  const [input, setInput] = useState('');
  const [error, setError] = useState<string | null>(null);
  const start = (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    gql(startRunMutation, { id: props.agent.id, input }).then(
      (r) => window.location.assign(runHref(r.startManagedRun.id)),
      (err: unknown) => setError(err instanceof GqlError || err instanceof Error ? err.message : String(err)),
    );
  };
  return (
    <form className="dash-form" onSubmit={start} noValidate>
      <label className="dash-field">
        Input for {props.agent.name}
        <input name="input" value={input} onChange={(e) => setInput(e.target.value)} />
      </label>
      <button className="btn btn-primary btn-small">Start run</button>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

export function AgentsView(props: { onSignedOut: () => void }) {
  const { data, error } = useQuery(managedAgentsQuery, {}, props.onSignedOut);
  if (error) return <p className="field-error">{error}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  if (data.managedAgents.length === 0) {
    return (
      <section className="dash-panel">
        <h2>Managed agents</h2>
        <p className="muted small">None yet: create one with POST /v1/managed-agents (a chain of LLM steps, or an agent that proposes calls to a connection).</p>
      </section>
    );
  }
  return (
    <div className="dash-grid">
      {data.managedAgents.map((a) => (
        <section key={a.id} className="dash-panel" aria-labelledby={`agent-${a.id}`} data-testid="managed-agent">
          <h2 id={`agent-${a.id}`}>{a.name}</h2>
          <p className="muted small">
            {a.kind === 'action' ? "Acts on the tenant's connections in a loop of turns, each call approved before it runs (unless its policy approves it)." : 'A chain of LLM steps.'}{' '}
            <span className="mono">{a.id}</span>
          </p>
          <StartRun agent={a} />
          <ScheduleControls agent={a} onSignedOut={props.onSignedOut} />
          {a.runs.length === 0 ? (
            <p className="muted small">No runs yet.</p>
          ) : (
            <div className="dash-table-wrap">
              <table className="dash-table">
                <thead>
                  <tr>
                    <th>Run</th>
                    <th>Status</th>
                    <th>Input</th>
                    <th>Started</th>
                  </tr>
                </thead>
                <tbody>
                  {a.runs.map((r) => (
                    <tr key={r.id}>
                      <td>
                        <a className="mono small" href={runHref(r.id)}>
                          {r.id}
                        </a>
                      </td>
                      <td>{r.status.replace('_', ' ')}</td>
                      <td className="small">{r.input}</td>
                      <td className="small">{new Date(r.createdAt).toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ))}
    </div>
  );
}
