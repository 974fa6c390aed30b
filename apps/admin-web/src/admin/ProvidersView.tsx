// Providers: which are configured and whether a key is set (never the key), a form to
// add or update a custom one, a live test that shows the vendor's error verbatim, and removal.
import { useState, type Dispatch, type FormEvent, type SetStateAction } from 'react';
import { providerNameSchema, providerWriteSchema } from '@optimizer/schema';
import type { ProviderFieldsFragment, TestProviderMutation, WireFormat } from '../gql/graphql.ts';
import type { Call } from './call.ts';
import { GqlError } from '../graphql-client.ts';
import { putProviderMutation, removeProviderMutation, testProviderMutation } from './operations.ts';
import { friendly, wireField, type FieldErrors, type Model } from './profile.ts';
import { Badge, ConfirmButton, FieldError, useNotify } from './ui.tsx';

export type ProviderRow = ProviderFieldsFragment;
type TestResult = TestProviderMutation['testProvider'];

const wires = providerWriteSchema.shape.wire.unwrap().options;

interface Draft {
  name: string;
  base_url: string;
  wire: WireFormat;
  api_key: string;
  enabled: boolean;
}
const emptyDraft: Draft = { name: '', base_url: '', wire: 'openai', api_key: '', enabled: true };

function validate(d: Draft): { ok: true } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const n = providerNameSchema.safeParse(d.name.trim());
  if (!n.success) errors.name = d.name.trim() ? n.error.issues[0]!.message : 'Required';
  const body = providerWriteSchema.safeParse({ base_url: d.base_url.trim(), wire: d.wire, enabled: d.enabled, ...(d.api_key ? { api_key: d.api_key } : {}) });
  if (!body.success) for (const i of body.error.issues) errors[String(i.path[0] ?? 'form')] ??= friendly(i.message);
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true };
}

export function ProvidersView(props: { providers: ProviderRow[]; setProviders: Dispatch<SetStateAction<ProviderRow[] | null>>; models: Model[]; call: Call }) {
  const { providers, setProviders, models, call } = props;
  const notify = useNotify();
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [tests, setTests] = useState<Record<string, TestResult | 'running'>>({});

  const existing = providers.find((p) => p.name === draft.name.trim() && !p.builtIn);
  const custom = providers.filter((p) => !p.builtIn);
  const builtIn = providers.filter((p) => p.builtIn);
  const modelCount = (name: string) => models.filter((m) => m.provider === name).length;

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    const next = { ...draft, [key]: value };
    setDraft(next);
    if (Object.keys(errors).length) {
      const v = validate(next);
      setErrors(v.ok ? {} : v.errors);
    }
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBanner(null);
    const v = validate(draft);
    if (!v.ok) return setErrors(v.errors);
    setSaving(true);
    try {
      const name = draft.name.trim();
      const r = await call(putProviderMutation, {
        name,
        input: { baseUrl: draft.base_url.trim(), wire: draft.wire, enabled: draft.enabled, ...(draft.api_key ? { apiKey: draft.api_key } : {}) },
      });
      setProviders((list) => (list ? (list.some((p) => p.name === name) ? list.map((p) => (p.name === name ? r.putProvider : p)) : [...list, r.putProvider]) : list));
      setTests(({ [name]: _stale, ...rest }) => rest);
      setDraft(emptyDraft);
      setErrors({});
      notify('ok', `${existing ? 'Updated' : 'Added'} provider ${name}.`);
    } catch (err) {
      const field = err instanceof GqlError && err.field ? wireField(err.field) : null;
      if (field) setErrors({ [field]: (err as Error).message });
      setBanner(`The gateway refused: ${(err as Error).message}`);
    } finally {
      setSaving(false);
    }
  };

  const test = async (name: string) => {
    setTests((t) => ({ ...t, [name]: 'running' }));
    try {
      const r = await call(testProviderMutation, { name });
      setTests((t) => ({ ...t, [name]: r.testProvider }));
    } catch (err) {
      setTests((t) => ({ ...t, [name]: { provider: name, ok: false, status: null, latencyMs: 0, error: (err as Error).message } }));
    }
  };

  const remove = async (name: string) => {
    try {
      await call(removeProviderMutation, { name });
      setProviders((list) => list?.filter((p) => p.name !== name) ?? list);
      notify('ok', `Removed provider ${name}.`);
    } catch (err) {
      notify('error', `Could not remove ${name}: ${(err as Error).message}`);
    }
  };

  const edit = (p: ProviderRow) => {
    setDraft({ name: p.name, base_url: p.baseUrl, wire: (wires as readonly string[]).includes(p.wire) ? (p.wire as WireFormat) : 'openai', api_key: '', enabled: p.enabled });
    setErrors({});
    setBanner(null);
    document.getElementById('pf-base_url')?.focus();
  };

  const row = (p: ProviderRow) => {
    const t = tests[p.name];
    const used = modelCount(p.name);
    return (
      <tbody key={p.name} className={`provider-group${p.enabled ? '' : ' row-off'}`} data-provider={p.name}>
        <tr>
          <td className="model-cell">
            <span className="mono strong">{p.name}</span>
            {p.builtIn && <Badge tone="info" title="Configured through the gateway's environment">built-in</Badge>}
          </td>
          <td className="mono url-cell" title={p.baseUrl}>
            {p.baseUrl}
          </td>
          <td>
            <span className="provider-chip">{p.wire}</span>
          </td>
          <td>{p.keySet ? <Badge tone="ok">● key set</Badge> : <Badge tone="muted">○ no key</Badge>}</td>
          <td>{p.enabled ? <span className="state-on">enabled</span> : <span className="muted">disabled</span>}</td>
          <td className="num muted tabular">{used || '–'}</td>
          <td className="actions">
            <button type="button" className="btn btn-ghost btn-small" onClick={() => void test(p.name)} disabled={t === 'running' || !p.enabled} aria-label={`Test ${p.name}`}>
              {t === 'running' ? 'Testing…' : 'Test'}
            </button>
            {!p.builtIn && (
              <>
                <button type="button" className="btn btn-ghost btn-small" onClick={() => edit(p)} aria-label={`Edit ${p.name}`}>
                  Edit
                </button>
                <ConfirmButton className="btn btn-ghost btn-small" label="Remove" confirmLabel="Confirm remove" onConfirm={() => remove(p.name)} />
              </>
            )}
          </td>
        </tr>
        {t && t !== 'running' && (
          <tr className="test-row">
            <td colSpan={7}>
              <div className={`test-result ${t.ok ? 'ok' : 'fail'}`} role="status" data-testid={`test-${p.name}`}>
                <strong>{t.ok ? '✓ Reachable' : '✕ Failed'}</strong>
                <span className="muted">
                  {t.status !== null ? `HTTP ${t.status}` : 'no answer'} · {t.latencyMs.toFixed(0)} ms
                </span>
                {t.error && <pre className="vendor-error">{t.error}</pre>}
              </div>
            </td>
          </tr>
        )}
      </tbody>
    );
  };

  const pf = (key: keyof Draft & string) => ({
    id: `pf-${key}`,
    'aria-invalid': errors[key] ? true : undefined,
    'aria-describedby': errors[key] ? `pf-${key}-error` : undefined,
  });

  return (
    <div className="stack">
      <section className="panel" aria-labelledby="add-provider-title">
        <div className="panel-head">
          <div>
            <h1 id="add-provider-title">{existing ? <>Update <span className="mono">{existing.name}</span></> : 'Add a provider'}</h1>
            <p className="muted small">An OpenAI-, Anthropic- or Gemini-compatible endpoint. The key is sealed at rest and never shown again.</p>
          </div>
        </div>
        <form className="provider-form" onSubmit={save} noValidate>
          <div className="field">
            <label className="field-label" htmlFor="pf-name">Name</label>
            <input {...pf('name')} className="mono" placeholder="acme-llm" autoComplete="off" value={draft.name} onChange={(e) => set('name', e.target.value)} />
            <FieldError id="pf-name-error" error={errors.name} />
          </div>
          <div className="field grow">
            <label className="field-label" htmlFor="pf-base_url">Base URL</label>
            <input {...pf('base_url')} className="mono" placeholder="https://api.example.com/v1" autoComplete="off" value={draft.base_url} onChange={(e) => set('base_url', e.target.value)} />
            <FieldError id="pf-base_url-error" error={errors.base_url} />
          </div>
          <div className="field">
            <label className="field-label" htmlFor="pf-wire">Wire format</label>
            <select {...pf('wire')} value={draft.wire} onChange={(e) => set('wire', e.target.value as WireFormat)}>
              {wires.map((w) => (
                <option key={w} value={w}>
                  {w}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label className="field-label" htmlFor="pf-api_key">API key</label>
            <input
              {...pf('api_key')}
              type="password"
              autoComplete="new-password"
              placeholder={existing?.keySet ? 'unchanged' : 'sk-…'}
              value={draft.api_key}
              onChange={(e) => set('api_key', e.target.value)}
            />
            <FieldError id="pf-api_key-error" error={errors.api_key} />
          </div>
          <div className="field field-check">
            <label className="check">
              <input type="checkbox" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} />
              Enabled
            </label>
          </div>
          <div className="field field-submit">
            <button type="submit" className="btn btn-primary" disabled={saving}>
              {saving ? 'Saving…' : existing ? 'Update provider' : 'Add provider'}
            </button>
            {(draft.name || draft.base_url) && (
              <button type="button" className="btn btn-ghost" onClick={() => { setDraft(emptyDraft); setErrors({}); setBanner(null); }}>
                Clear
              </button>
            )}
          </div>
        </form>
        {banner && (
          <div className="form-banner" role="alert">
            {banner}
          </div>
        )}
      </section>

      <section className="panel" aria-labelledby="providers-title">
        <div className="panel-head">
          <div>
            <h1 id="providers-title">Providers</h1>
            <p className="muted small">
              {custom.length} custom · {builtIn.length} built-in. Built-in providers take their base URL and key from the gateway's environment.
            </p>
          </div>
        </div>
        <div className="table-wrap">
          <table className="grid providers-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Base URL</th>
                <th>Wire</th>
                <th>Key</th>
                <th>State</th>
                <th className="num">Models</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            {custom.length === 0 && (
              <tbody>
                <tr>
                  <td colSpan={7} className="empty">
                    No custom provider yet. Add one above to route to any compatible endpoint.
                  </td>
                </tr>
              </tbody>
            )}
            {custom.map(row)}
            {builtIn.length > 0 && (
              <tbody>
                <tr className="group-row">
                  <th colSpan={7} scope="rowgroup">
                    Built-in
                  </th>
                </tr>
              </tbody>
            )}
            {builtIn.map(row)}
          </table>
        </div>
      </section>
    </div>
  );
}
