// What the gateway keeps and guards: content capture (none, metadata or full, how long, PII
// masked) and the guard (PII redaction before the vendor, the prompt-injection policy), each
// checked with the server's own schema before it is sent; the alert channels, read only.
import { useEffect, useState, type FormEvent } from 'react';
import { captureSettings, guardSettings } from '@optimizer/schema';
import { FieldError, useNotify } from '../admin/ui.tsx';
import { gql } from './client.ts';
import { GqlError } from '../graphql-client.ts';
import type { CaptureContent, InjectionPolicy } from '../gql/graphql.ts';
import { protectionSettingsQuery, saveCaptureMutation, saveGuardMutation } from './queries.ts';
import { useQuery } from './useQuery.ts';

const CONTENT: CaptureContent[] = ['none', 'metadata', 'full'];
const INJECTION: InjectionPolicy[] = ['allow', 'flag', 'block'];

export function ProtectionSettings(props: { onSignedOut: () => void }) {
  const { data, error, reload } = useQuery(protectionSettingsQuery, {}, props.onSignedOut);
  const notify = useNotify();
  const [capture, setCapture] = useState({ content: 'metadata' as CaptureContent, retentionDays: '30', redactPii: true });
  const [guard, setGuard] = useState({ redactPii: false, injection: 'allow' as InjectionPolicy });
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => {
    if (!data) return;
    setCapture({ content: data.captureSettings.content, retentionDays: String(data.captureSettings.retentionDays), redactPii: data.captureSettings.redactPii });
    setGuard({ redactPii: data.guardSettings.redactPii, injection: data.guardSettings.injection });
  }, [data]);
  if (error) return <p className="field-error">{error}</p>;
  if (!data) return <p className="muted">Loading…</p>;

  const failed = (form: string) => (err: unknown) => setErrors({ [err instanceof GqlError && err.field ? err.field : form]: err instanceof Error ? err.message : String(err) });

  const saveCapture = (e: FormEvent) => {
    e.preventDefault();
    const checked = captureSettings.safeParse({ content: capture.content, retention_days: Number(capture.retentionDays), redact_pii: capture.redactPii });
    if (!checked.success) {
      setErrors({ retentionDays: checked.error.issues[0]?.message ?? 'invalid' });
      return;
    }
    setErrors({});
    gql(saveCaptureMutation, { input: { content: checked.data.content, retentionDays: checked.data.retention_days, redactPii: checked.data.redact_pii } }).then(() => {
      notify('ok', 'Capture settings saved.');
      reload();
    }, failed('capture'));
  };

  const saveGuard = (e: FormEvent) => {
    e.preventDefault();
    const kinds = data.guardSettings.piiKinds;
    const checked = guardSettings.safeParse({ redact_pii: guard.redactPii, pii_kinds: kinds, injection: guard.injection });
    if (!checked.success) {
      setErrors({ guard: checked.error.issues[0]?.message ?? 'invalid' });
      return;
    }
    setErrors({});
    gql(saveGuardMutation, { input: { redactPii: guard.redactPii, piiKinds: kinds, injection: guard.injection } }).then(() => {
      notify('ok', 'Guard settings saved.');
      reload();
    }, failed('guard'));
  };

  const alerts = data.alertSettings;
  return (
    <>
      <section className="dash-panel">
        <h2>Content capture</h2>
        <form className="dash-form" onSubmit={saveCapture} noValidate>
          <label className="dash-field">
            What is kept
            <select name="content" value={capture.content} onChange={(e) => setCapture({ ...capture, content: e.target.value as CaptureContent })}>
              {CONTENT.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
            <span className="muted small">none: no recording; metadata: who, when, which model, sizes; full: the request and the stored response.</span>
          </label>
          <label className="dash-field">
            Retention (days)
            <input name="retentionDays" inputMode="numeric" value={capture.retentionDays} aria-invalid={errors.retentionDays ? true : undefined} aria-describedby="retentionDays-error" onChange={(e) => setCapture({ ...capture, retentionDays: e.target.value })} />
            <FieldError id="retentionDays-error" error={errors.retentionDays} />
          </label>
          <label className="dash-field">
            <span>
              <input type="checkbox" name="captureRedactPii" checked={capture.redactPii} onChange={(e) => setCapture({ ...capture, redactPii: e.target.checked })} /> Mask personal data in what is kept
            </span>
          </label>
          <FieldError id="capture-error" error={errors.capture} />
          <button className="btn btn-primary">Save capture</button>
        </form>
      </section>
      <section className="dash-panel">
        <h2>Guard</h2>
        <form className="dash-form" onSubmit={saveGuard} noValidate>
          <label className="dash-field">
            <span>
              <input type="checkbox" name="guardRedactPii" checked={guard.redactPii} onChange={(e) => setGuard({ ...guard, redactPii: e.target.checked })} /> Redact personal data before the vendor sees it ({data.guardSettings.piiKinds.join(', ')})
            </span>
          </label>
          <label className="dash-field">
            Prompt injection
            <select name="injection" value={guard.injection} onChange={(e) => setGuard({ ...guard, injection: e.target.value as InjectionPolicy })}>
              {INJECTION.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
            <span className="muted small">allow: not looked for; flag: recorded on the call; block: refused before any vendor call.</span>
          </label>
          <FieldError id="guard-error" error={errors.guard} />
          <button className="btn btn-primary">Save guard</button>
        </form>
      </section>
      <section className="dash-panel">
        <h2>Alerts</h2>
        <p className="small">
          {alerts.spendCapUsd === null ? 'No spend cap.' : `Spend cap $${alerts.spendCapUsd}, alerts at ${alerts.spendThresholds.join(', ')}%.`} Events: {alerts.events.join(', ') || 'none'}.
        </p>
        <p className="small">Email: {alerts.emailTo.join(', ') || 'none'}.</p>
        <ul className="dash-list">
          {alerts.webhooks.map((w) => (
            <li key={w.id} className="mono small">
              {w.url} {w.enabled ? '' : '(disabled)'}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
