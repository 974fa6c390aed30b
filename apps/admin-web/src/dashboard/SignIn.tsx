// Sign-in: the account's email and one of its keys. The key goes to the server once and is
// never kept by the page; the session lives in an HttpOnly cookie.
import { useState, type FormEvent } from 'react';
import { loginRequest } from '@optimizer/schema';
import { login } from './client.ts';

export function SignIn(props: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = loginRequest.safeParse({ email, api_key: key });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? 'Check the form.');
    setBusy(true);
    login(parsed.data.email, parsed.data.api_key).then(
      () => {
        setKey('');
        props.onSignedIn();
      },
      (err: unknown) => {
        setBusy(false);
        setError(err instanceof Error ? err.message : String(err));
      },
    );
  };
  return (
    <main className="shell landing">
      <header>
        <h1>Optimizer</h1>
        <p className="tagline">The cheapest model that still holds each step's quality bar, with the proof per call.</p>
      </header>
      <section>
        <h2>Sign in</h2>
        <form className="signin" onSubmit={submit} noValidate>
          <label>
            Email
            <input name="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} />
          </label>
          <label>
            API key
            <input name="api_key" type="password" autoComplete="current-password" placeholder="sk-opt-…" value={key} onChange={(e) => setKey(e.target.value)} />
          </label>
          {error && (
            <div className="field-error" role="alert">
              {error}
            </div>
          )}
          <button className="btn btn-primary btn-block" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </section>
      <section className="landing-point">
        <h2>Point your client here</h2>
        <pre>{`const client = new OpenAI({ baseURL: '${window.location.origin}/v1', apiKey: 'sk-opt-…' });`}</pre>
        <p>
          Get a key with <code>POST /v1/signup</code>. Every completion answers with an <code>optimizer</code> block: what the call would have cost, what it cost, and the saving.
        </p>
      </section>
      <p className="landing-foot">
        Platform admin? <a href="/optimizer/admin">Open the admin console</a>.
      </p>
    </main>
  );
}
