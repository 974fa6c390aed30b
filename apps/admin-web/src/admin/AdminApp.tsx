// The platform admin console at /optimizer/admin: sign in with the admin key (kept in
// memory, or in this tab's sessionStorage when asked; never localStorage), then the
// catalog and the providers, over the GraphQL door.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { GqlError, gqlRequest } from '../graphql-client.ts';
import { CatalogView } from './CatalogView.tsx';
import { catalogQuery, providersQuery } from './operations.ts';
import type { Model } from './profile.ts';
import { ProvidersView, type ProviderRow } from './ProvidersView.tsx';
import { Notices } from './ui.tsx';
import type { Call } from './call.ts';

export type { Call } from './call.ts';

const SESSION_KEY = 'optimizer.admin-key';
export const ADMIN_BASE = '/optimizer/admin';


type Tab = 'catalog' | 'providers';

function tabFromPath(): Tab {
  return /\/optimizer\/admin\/providers\/?$/.test(window.location.pathname) ? 'providers' : 'catalog';
}

export function AdminApp() {
  const [adminKey, setAdminKey] = useState<string | null>(() => sessionStorage.getItem(SESSION_KEY));
  const [signedOutReason, setSignedOutReason] = useState<string | null>(null);

  const signOut = useCallback((reason: string | null = null) => {
    sessionStorage.removeItem(SESSION_KEY);
    setAdminKey(null);
    setSignedOutReason(reason);
  }, []);

  if (!adminKey) {
    return (
      <SignIn
        reason={signedOutReason}
        onSignedIn={(key, remember) => {
          if (remember) sessionStorage.setItem(SESSION_KEY, key);
          setSignedOutReason(null);
          setAdminKey(key);
        }}
      />
    );
  }
  return (
    <Notices>
      <Console adminKey={adminKey} onSignOut={signOut} />
    </Notices>
  );
}

function SignIn(props: { reason: string | null; onSignedIn: (key: string, remember: boolean) => void }) {
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(true);
  const [error, setError] = useState<string | null>(props.reason);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const k = key.trim();
    if (!k) return setError('Enter the admin key.');
    setBusy(true);
    setError(null);
    try {
      await gqlRequest(providersQuery, {}, k);
      props.onSignedIn(k, remember);
    } catch (err) {
      setError(err instanceof GqlError && err.code === 'UNAUTHENTICATED' ? 'That is not the admin key.' : (err as Error).message);
      setBusy(false);
    }
  };

  return (
    <main className="signin">
      <form className="signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">◆</span> Optimizer <span className="brand-tag">Admin</span>
        </div>
        <h1 id="signin-title">Sign in</h1>
        <p className="muted">
          Use the platform admin key: <code>ADMIN_KEY</code> from the gateway's environment, or the key it printed once at first start.
        </p>
        <label className="field">
          <span className="field-label">Admin key</span>
          <input
            type="password"
            name="admin-key"
            autoComplete="current-password"
            autoFocus
            value={key}
            onChange={(e) => setKey(e.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'signin-error' : undefined}
          />
        </label>
        <label className="check">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
          Stay signed in in this tab
        </label>
        {error && (
          <div className="form-banner" role="alert" id="signin-error">
            {error}
          </div>
        )}
        <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

function Console(props: { adminKey: string; onSignOut: (reason?: string | null) => void }) {
  const { adminKey, onSignOut } = props;
  const [tab, setTab] = useState<Tab>(tabFromPath);
  const [models, setModels] = useState<Model[] | null>(null);
  const [providers, setProviders] = useState<ProviderRow[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  const call: Call = useCallback(
    async (doc, variables) => {
      try {
        return await gqlRequest(doc, variables, adminKey);
      } catch (e) {
        if (e instanceof GqlError && e.code === 'UNAUTHENTICATED') onSignOut('The gateway no longer accepts that admin key. Sign in again.');
        throw e;
      }
    },
    [adminKey, onSignOut],
  );

  const load = useCallback(async () => {
    setLoadError(null);
    try {
      const [c, p] = await Promise.all([call(catalogQuery, {}), call(providersQuery, {})]);
      setModels(c.catalog);
      setProviders(p.providers);
    } catch (e) {
      setLoadError((e as Error).message);
    }
  }, [call]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    const onPop = () => setTab(tabFromPath());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  const go = (t: Tab) => {
    if (t === tab) return;
    window.history.pushState(null, '', t === 'catalog' ? ADMIN_BASE : `${ADMIN_BASE}/providers`);
    setTab(t);
  };

  const disabledCount = models?.filter((m) => m.disabled).length ?? 0;
  const customCount = providers?.filter((p) => !p.builtIn).length ?? 0;

  return (
    <div className="console">
      <header className="topbar">
        <div className="topbar-inner">
          <a className="brand" href="/optimizer/">
            <span className="brand-mark" aria-hidden="true">◆</span> Optimizer <span className="brand-tag">Admin</span>
          </a>
          <nav className="tabs" aria-label="Admin sections">
            <a
              href={ADMIN_BASE}
              className={`tab${tab === 'catalog' ? ' active' : ''}`}
              aria-current={tab === 'catalog' ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                go('catalog');
              }}
            >
              Catalog {models && <span className="tab-count">{models.length}</span>}
            </a>
            <a
              href={`${ADMIN_BASE}/providers`}
              className={`tab${tab === 'providers' ? ' active' : ''}`}
              aria-current={tab === 'providers' ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                go('providers');
              }}
            >
              Providers {providers && <span className="tab-count">{providers.length}</span>}
            </a>
          </nav>
          <div className="topbar-meta">
            {models && (
              <span className="muted small">
                {models.length - disabledCount} routable · {disabledCount} disabled · {customCount} custom provider{customCount === 1 ? '' : 's'}
              </span>
            )}
            <button type="button" className="btn btn-ghost" onClick={() => onSignOut(null)}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main className="content">
        {loadError && (
          <div className="form-banner" role="alert">
            Could not load: {loadError}{' '}
            <button type="button" className="btn btn-ghost" onClick={() => void load()}>
              Retry
            </button>
          </div>
        )}
        {!models || !providers ? (
          !loadError && <div className="loading">Loading…</div>
        ) : tab === 'catalog' ? (
          <CatalogView models={models} setModels={setModels} providers={providers} call={call} />
        ) : (
          <ProvidersView providers={providers} setProviders={setProviders} models={models} call={call} />
        )}
      </main>
    </div>
  );
}
