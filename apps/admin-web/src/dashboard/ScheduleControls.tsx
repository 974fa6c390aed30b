// A managed agent's cron schedule (UTC) on its card in the Agents tab: what it is (the expression,
// the input of its runs, the catch-up window, the next tick and the last one fired), a form that
// sets or replaces it, and a button that removes it. Each calls the API (GraphQL on the session
// cookie) and reads the schedule back.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { GqlError } from '../graphql-client.ts';
import type { ManagedAgentScheduleQuery } from '../gql/graphql.ts';
import { gql, signedOut } from './client.ts';
import { managedScheduleQuery, scheduleAgentMutation, unscheduleAgentMutation } from './queries.ts';

type Schedule = ManagedAgentScheduleQuery['managedAgentSchedule'];

const message = (err: unknown) => (err instanceof GqlError || err instanceof Error ? err.message : String(err));
const when = (iso: string | null) => (iso === null ? 'never' : new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');

export function ScheduleControls(props: { agent: { id: string; name: string }; onSignedOut: () => void }) {
  const { agent, onSignedOut } = props;
  // undefined: loading; null: the agent has none
  const [schedule, setSchedule] = useState<Schedule | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [cron, setCron] = useState('0 9 * * 1-5');
  const [input, setInput] = useState('');
  const [catchUp, setCatchUp] = useState('3600');

  const load = useCallback(() => {
    gql(managedScheduleQuery, { id: agent.id }).then(
      (d) => setSchedule(d.managedAgentSchedule),
      (err: unknown) => {
        if (signedOut(err)) onSignedOut();
        else if (err instanceof GqlError && err.apiCode === 'not_found') setSchedule(null);
        else setError(message(err));
      },
    );
  }, [agent.id, onSignedOut]);
  useEffect(load, [load]);

  const act = (call: Promise<unknown>) => {
    setBusy(true);
    setError(null);
    call.then(
      () => {
        setBusy(false);
        load();
      },
      (err: unknown) => {
        setBusy(false);
        setError(message(err));
      },
    );
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    const catchUpS = Number(catchUp);
    if (catchUp.trim() === '' || !Number.isInteger(catchUpS) || catchUpS < 0) {
      setError('Catch-up window: a whole number of seconds (0: missed ticks never fire).');
      return;
    }
    act(gql(scheduleAgentMutation, { id: agent.id, cron, input, catchUpS }));
  };

  return (
    <div className="dash-schedule" data-testid="agent-schedule">
      <h3 className="small strong">Schedule</h3>
      {schedule === undefined && !error && <p className="muted small">Loading…</p>}
      {schedule === null && <p className="muted small">No schedule: runs start only when asked.</p>}
      {schedule && (
        <p className="small" data-testid="schedule-summary">
          <span className="mono">{schedule.cron}</span> (UTC) with input “{schedule.input}” · next <span data-testid="schedule-next">{when(schedule.nextAt)}</span> · last tick{' '}
          {when(schedule.lastTick)} · missed ticks caught up within {schedule.catchUpS} s{' '}
          <button type="button" className="btn btn-small" disabled={busy} onClick={() => act(gql(unscheduleAgentMutation, { id: agent.id }))}>
            Remove schedule
          </button>
        </p>
      )}
      <form className="dash-form" onSubmit={save} noValidate>
        <label className="dash-field">
          Cron for {agent.name}
          <input name="cron" value={cron} onChange={(e) => setCron(e.target.value)} />
        </label>
        <label className="dash-field">
          Scheduled run input, {agent.name}
          <input name="scheduled-input" value={input} onChange={(e) => setInput(e.target.value)} />
        </label>
        <label className="dash-field">
          Catch-up window (s) for {agent.name}
          <input name="catch-up" inputMode="numeric" value={catchUp} onChange={(e) => setCatchUp(e.target.value)} />
        </label>
        <button className="btn btn-small" disabled={busy}>
          {schedule ? 'Replace schedule' : 'Set schedule'}
        </button>
      </form>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
