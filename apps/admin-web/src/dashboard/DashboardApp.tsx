// The tenant dashboard at /optimizer/: sign in with email + key (a session cookie), then the
// overview (savings over time by source, spend against the baseline), calls, workflows with
// their steps, events, recordings, report and lockfile, billing, managed agents with their
// runs (live events, actions to approve), and the routing, capture and guard settings.
// Views by URL hash.
import { useCallback, useEffect, useState } from 'react';
import { Notices } from '../admin/ui.tsx';
import { gql, logout, signedOut } from './client.ts';
import { overviewQuery } from './queries.ts';
import { SignIn } from './SignIn.tsx';
import { Overview } from './Overview.tsx';
import { CallsView } from './CallsView.tsx';
import { WorkflowView } from './WorkflowView.tsx';
import { SettingsView } from './SettingsView.tsx';
import { BillingView } from './BillingView.tsx';
import { AgentsView } from './AgentsView.tsx';
import { RunView } from './RunView.tsx';

type Route = { view: 'overview' } | { view: 'calls' } | { view: 'workflow'; id: string } | { view: 'settings' } | { view: 'billing' } | { view: 'agents' } | { view: 'run'; id: string };

function routeOf(hash: string): Route {
  const [, view, id] = hash.replace(/^#/, '').split('/');
  if (view === 'calls') return { view: 'calls' };
  if (view === 'settings') return { view: 'settings' };
  if (view === 'billing') return { view: 'billing' };
  if (view === 'agents') return { view: 'agents' };
  if (view === 'runs' && id) return { view: 'run', id: decodeURIComponent(id) };
  if (view === 'workflows' && id) return { view: 'workflow', id: decodeURIComponent(id) };
  return { view: 'overview' };
}

export function DashboardApp() {
  const [session, setSession] = useState<'checking' | 'in' | 'out'>('checking');
  const [route, setRoute] = useState<Route>(() => routeOf(window.location.hash));
  useEffect(() => {
    const on = () => setRoute(routeOf(window.location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  useEffect(() => {
    // a session cookie is HttpOnly: ask the server whether it still holds
    gql(overviewQuery, { days: 1 }).then(
      () => setSession('in'),
      (e: unknown) => setSession(signedOut(e) ? 'out' : 'in'),
    );
  }, []);
  const onSignedOut = useCallback(() => setSession('out'), []);

  if (session === 'checking') return <main className="dash-loading muted">Loading…</main>;
  if (session === 'out') return <SignIn onSignedIn={() => setSession('in')} />;
  // a run's page sits under the Agents tab
  const current = route.view === 'run' ? 'agents' : route.view;
  const tab = (view: Route['view'], href: string, label: string) => (
    <a href={href} className={`dash-tab${current === view ? ' active' : ''}`} aria-current={current === view ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <Notices>
      <div className="dash">
        <header className="dash-top">
          <a className="dash-brand" href="#/overview">
            Optimizer
          </a>
          <nav className="dash-tabs" aria-label="Dashboard">
            {tab('overview', '#/overview', 'Overview')}
            {tab('calls', '#/calls', 'Calls')}
            {tab('agents', '#/agents', 'Agents')}
            {tab('billing', '#/billing', 'Billing')}
            {tab('settings', '#/settings', 'Settings')}
          </nav>
          <button
            type="button"
            className="btn btn-ghost btn-small"
            onClick={() => {
              void logout().finally(() => setSession('out'));
            }}
          >
            Sign out
          </button>
        </header>
        <main className="dash-main">
          {route.view === 'overview' && <Overview onSignedOut={onSignedOut} />}
          {route.view === 'calls' && <CallsView onSignedOut={onSignedOut} />}
          {route.view === 'workflow' && <WorkflowView id={route.id} onSignedOut={onSignedOut} />}
          {route.view === 'settings' && <SettingsView onSignedOut={onSignedOut} />}
          {route.view === 'billing' && <BillingView onSignedOut={onSignedOut} />}
          {route.view === 'agents' && <AgentsView onSignedOut={onSignedOut} />}
          {route.view === 'run' && <RunView key={route.id} id={route.id} onSignedOut={onSignedOut} />}
        </main>
      </div>
    </Notices>
  );
}
