// One managed run: its status, steps and output, its events as they happen (the run's SSE
// stream, on the session cookie; the browser resumes it with Last-Event-ID after a drop),
// the actions it proposed, each with an Approve button that executes it once, and a Cancel
// button while the run has not ended.
import { useEffect, useState } from 'react';
import { GqlError } from '../graphql-client.ts';
import { gql } from './client.ts';
import { cancelRunMutation, executeActionMutation, managedRunQuery } from './queries.ts';
import { useQuery } from './useQuery.ts';

interface RunEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  created_at: string | null;
}

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.cancelled']);
// every type a run writes (an action run's loop adds refused calls and the results fed back)
const TYPES = [
  'run.started', 'run.resumed', 'step.started', 'step.completed', 'action.proposed', 'action.refused', 'run.waiting_approval',
  'action.executing', 'action.executed', 'action.failed', 'actions.returned', 'run.completed', 'run.failed', 'run.cancelled',
];

/** A line for an event: its type and the parts that say what happened. */
function summary(e: RunEvent): string {
  const d = e.data;
  if (e.type === 'step.completed' && d.tool_calls !== undefined) return `turn ${String(d.index)}: ${String(d.tool_calls)} call(s)`;
  if (e.type.startsWith('step.')) return `${String(d.step)}${d.attempt !== undefined ? ` (attempt ${String(d.attempt)})` : ''}`;
  if (e.type === 'action.proposed') return `${String(d.method)} ${String(d.path)} on ${String(d.connection)}`;
  if (e.type === 'action.executed') return `answered ${String(d.status)}`;
  if (e.type === 'action.failed' || e.type === 'action.refused' || e.type === 'run.failed') return String(d.message ?? d.error ?? '');
  return '';
}

/** The run's events, live: every event from the first, then each as it is written, until the run ends. */
function useRunEvents(url: string | null, onEvent: (e: RunEvent) => void) {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [live, setLive] = useState(false);
  useEffect(() => {
    if (url === null) return;
    setEvents([]);
    const source = new EventSource(url, { withCredentials: true });
    const seen = new Set<number>();
    const on = (m: MessageEvent<string>) => {
      const e = JSON.parse(m.data) as RunEvent;
      if (seen.has(e.seq)) return;
      seen.add(e.seq);
      setEvents((prev) => [...prev, e]);
      onEvent(e);
      if (TERMINAL.has(e.type)) {
        source.close();
        setLive(false);
      }
    };
    for (const t of TYPES) source.addEventListener(t, on);
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(false);
    return () => source.close();
  }, [url, onEvent]);
  return { events, live };
}

export function RunView(props: { id: string; onSignedOut: () => void }) {
  const { data, error, reload } = useQuery(managedRunQuery, { id: props.id }, props.onSignedOut);
  const [actionError, setActionError] = useState<string | null>(null);
  const [cancelError, setCancelError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const { events, live } = useRunEvents(data ? data.managedRun.eventsUrl : null, reload);
  if (error) return <p className="field-error">{error}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  const run = data.managedRun;

  const approve = (action: string) => {
    setBusy(action);
    setActionError(null);
    gql(executeActionMutation, { id: run.id, action }).then(
      () => {
        setBusy(null);
        reload();
      },
      (err: unknown) => {
        setBusy(null);
        setActionError(err instanceof GqlError || err instanceof Error ? err.message : String(err));
        reload();
      },
    );
  };

  const cancel = () => {
    setBusy('cancel');
    setCancelError(null);
    gql(cancelRunMutation, { id: run.id }).then(
      () => {
        setBusy(null);
        reload();
      },
      (err: unknown) => {
        setBusy(null);
        setCancelError(err instanceof GqlError || err instanceof Error ? err.message : String(err));
        reload();
      },
    );
  };
  const open = run.status === 'running' || run.status === 'waiting_approval';

  return (
    <div className="dash-grid">
      <section className="dash-panel" aria-labelledby="run">
        <h2 id="run">
          Run <span className="mono">{run.id}</span>
        </h2>
        <p>
          Status <span className="strong" data-testid="run-status">{run.status.replace('_', ' ')}</span> · {run.kind}
          {run.agent ? (
            <>
              {' '}
              · <a href="#/agents">agent {run.agent}</a>
            </>
          ) : (
            ' · playground'
          )}
        </p>
        {open && (
          <button type="button" className="btn btn-small" disabled={busy !== null} onClick={cancel}>
            Cancel run
          </button>
        )}
        {cancelError && (
          <p className="field-error" role="alert">
            {cancelError}
          </p>
        )}
        {run.input && <p className="small">Input: {run.input}</p>}
        {run.error && <p className="field-error">{run.error}</p>}
        {run.steps.length > 0 && (
          <ol className="dash-list">
            {run.steps.map((s) => (
              <li key={s.name}>
                <span className="strong">{s.name}</span> <span className="small">{s.output}</span>
              </li>
            ))}
          </ol>
        )}
        {run.output !== null && <p>Output: {run.output}</p>}
      </section>
      {run.kind === 'action' && (
        <section className="dash-panel" aria-labelledby="actions">
          <h2 id="actions">Proposed actions</h2>
          {actionError && (
            <p className="field-error" role="alert">
              {actionError}
            </p>
          )}
          {run.actions.length === 0 ? (
            <p className="muted small">None proposed yet.</p>
          ) : (
            <ul className="dash-list">
              {run.actions.map((a) => (
                <li key={a.id} data-testid="managed-action">
                  <span className="mono small">
                    {a.method} {a.path}
                  </span>{' '}
                  on {a.connection} · <span data-testid="action-status">{a.status}</span>
                  {a.body !== null && <pre className="small">{JSON.stringify(a.body, null, 2)}</pre>}
                  {a.response && <p className="small">Answered {a.response.status}</p>}
                  {a.error && <p className="field-error">{a.error}</p>}
                  {a.status === 'proposed' && (
                    <button type="button" className="btn btn-primary btn-small" disabled={busy !== null} onClick={() => approve(a.id)}>
                      Approve
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      <section className="dash-panel" aria-labelledby="events">
        <h2 id="events">Events {live && <span className="muted small">(live)</span>}</h2>
        <ol className="dash-list" data-testid="run-events">
          {events.map((e) => (
            <li key={e.seq} data-type={e.type}>
              <span className="mono small">{e.type}</span> <span className="small">{summary(e)}</span>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
