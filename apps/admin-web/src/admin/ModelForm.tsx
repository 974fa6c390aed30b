// Add or edit a model's full profile in a modal dialog. Validated on the client with the
// shared zod schema (@optimizer/schema); the server validates again with the same one,
// and its refusal is shown at the field it names.
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { capabilitySchema, modalitySchema, modelProfileSchema, reasoningEffortSchema } from '@optimizer/schema';
import type { Call } from './call.ts';
import { GqlError } from '../graphql-client.ts';
import { putModelMutation, removeModelMutation } from './operations.ts';
import { toInput, toProfile, validateProfile, wireField, type FieldErrors, type Model } from './profile.ts';
import type { ProviderRow } from './ProvidersView.tsx';
import { ConfirmButton, FieldError } from './ui.tsx';

const modalities = modalitySchema.options;
const efforts = reasoningEffortSchema.options;
const capabilities = capabilitySchema.options;
const toolLevels = modelProfileSchema.shape.tools.options;

interface Draft {
  model: string;
  provider: string;
  input_per_mtok: string;
  output_per_mtok: string;
  cached_input_per_mtok: string;
  cache_write_multiplier: string;
  input_modalities: string[];
  output_modalities: string[];
  tools: string;
  structured_outputs: boolean;
  reasoning_efforts: string[];
  context_length: string;
  max_output_tokens: string;
  search_only: boolean;
  moderation_only: boolean;
  strengths: Record<string, string>;
  disabled: boolean;
  failover: string;
  weights: string;
}

function draftOf(m: Model | null, defaultProvider: string): Draft {
  if (!m) {
    return {
      model: '', provider: defaultProvider, input_per_mtok: '', output_per_mtok: '', cached_input_per_mtok: '', cache_write_multiplier: '1',
      input_modalities: ['text'], output_modalities: ['text'], tools: 'full', structured_outputs: true, reasoning_efforts: [],
      context_length: '128000', max_output_tokens: '16384', search_only: false, moderation_only: false, strengths: {}, disabled: false, failover: '', weights: '',
    };
  }
  const p = toProfile(m);
  return {
    model: p.model, provider: p.provider,
    input_per_mtok: String(p.input_per_mtok), output_per_mtok: String(p.output_per_mtok), cached_input_per_mtok: String(p.cached_input_per_mtok),
    cache_write_multiplier: String(p.cache_write_multiplier), input_modalities: p.input_modalities, output_modalities: p.output_modalities, tools: p.tools,
    structured_outputs: p.structured_outputs, reasoning_efforts: p.reasoning_efforts, context_length: String(p.context_length), max_output_tokens: String(p.max_output_tokens),
    search_only: p.search_only, moderation_only: p.moderation_only,
    strengths: Object.fromEntries(Object.entries(p.strengths).map(([k, v]) => [k, String(v)])),
    disabled: p.disabled, failover: p.failover.join(', '), weights: p.weights ?? '',
  };
}

const num = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s.trim()));

/** The candidate wire profile; the shared schema decides whether it is valid. */
function candidate(d: Draft): unknown {
  return {
    model: d.model.trim(), provider: d.provider, input_per_mtok: num(d.input_per_mtok), output_per_mtok: num(d.output_per_mtok),
    cached_input_per_mtok: num(d.cached_input_per_mtok), cache_write_multiplier: num(d.cache_write_multiplier),
    input_modalities: d.input_modalities, output_modalities: d.output_modalities, tools: d.tools, structured_outputs: d.structured_outputs,
    reasoning_efforts: d.reasoning_efforts, context_length: num(d.context_length), max_output_tokens: num(d.max_output_tokens),
    search_only: d.search_only, moderation_only: d.moderation_only,
    strengths: Object.fromEntries(Object.entries(d.strengths).filter(([, v]) => v.trim() !== '').map(([k, v]) => [k, Number(v)])),
    disabled: d.disabled, failover: d.failover.split(/[\s,]+/).filter(Boolean),
    ...(d.weights.trim() ? { weights: d.weights.trim() } : {}),
  };
}

export function ModelDialog(props: {
  initial: Model | null;
  models: Model[];
  providers: ProviderRow[];
  call: Call;
  onClose: () => void;
  onSaved: (m: Model) => void;
  onRemoved: (name: string) => void;
}) {
  const { initial, call } = props;
  const editing = initial !== null;
  const ref = useRef<HTMLDialogElement>(null);
  const routable = props.providers.filter((p) => p.enabled);
  const [draft, setDraft] = useState<Draft>(() => draftOf(initial, routable[0]?.name ?? 'openai'));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    const next = { ...draft, [key]: value };
    setDraft(next);
    if (tried) {
      const v = validateProfile(candidate(next));
      setErrors(v.ok ? {} : v.errors);
    }
  };
  const toggleIn = (key: 'input_modalities' | 'output_modalities' | 'reasoning_efforts', value: string) =>
    set(key, draft[key].includes(value) ? draft[key].filter((x) => x !== value) : [...draft[key], value]);

  const focusFirstError = () =>
    requestAnimationFrame(() => {
      const el = ref.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
      el?.focus({ preventScroll: true });
      el?.closest('.field, .form-section')?.scrollIntoView({ block: 'center' });
    });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    setBanner(null);
    const v = validateProfile(candidate(draft));
    if (!v.ok) {
      setErrors(v.errors);
      setBanner('Check the highlighted fields.');
      return focusFirstError();
    }
    setErrors({});
    setBusy(true);
    try {
      const r = await call(putModelMutation, { input: toInput(v.profile) });
      props.onSaved(r.putModel);
    } catch (err) {
      const field = err instanceof GqlError && err.field ? wireField(err.field) : null;
      if (field) setErrors({ [field]: err instanceof Error ? err.message : String(err) });
      setBanner(`The gateway refused: ${(err as Error).message}`);
      if (field) focusFirstError();
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!initial) return;
    setBusy(true);
    try {
      await call(removeModelMutation, { model: initial.model });
      props.onRemoved(initial.model);
    } catch (err) {
      setBanner(`Could not remove: ${(err as Error).message}`);
      setBusy(false);
    }
  };

  const field = (key: string, label: string, control: (a: { id: string; invalid: boolean; describedBy: string | undefined }) => ReactNode, hint?: string) => {
    const id = `mf-${key.replace(/\W/g, '-')}`;
    const err = errors[key];
    return (
      <div className={`field${err ? ' has-error' : ''}`}>
        <label className="field-label" htmlFor={id}>
          {label}
        </label>
        {control({ id, invalid: Boolean(err), describedBy: err ? `${id}-error` : hint ? `${id}-hint` : undefined })}
        {hint && !err && (
          <div className="field-hint" id={`${id}-hint`}>
            {hint}
          </div>
        )}
        <FieldError id={`${id}-error`} error={err} />
      </div>
    );
  };

  const text = (key: keyof Draft & string, label: string, opts: { numeric?: boolean; prefix?: string; hint?: string; readOnly?: boolean; mono?: boolean } = {}) =>
    field(
      key,
      label,
      (a) => (
        <div className={`input-wrap${opts.prefix ? ' with-prefix' : ''}`}>
          {opts.prefix && <span className="prefix">{opts.prefix}</span>}
          <input
            id={a.id}
            name={key}
            className={opts.mono ? 'mono' : undefined}
            inputMode={opts.numeric ? 'decimal' : undefined}
            readOnly={opts.readOnly}
            aria-invalid={a.invalid || undefined}
            aria-describedby={a.describedBy}
            value={draft[key] as string}
            onChange={(e) => set(key, e.target.value as never)}
          />
        </div>
      ),
      opts.hint,
    );

  const chips = (key: 'input_modalities' | 'output_modalities' | 'reasoning_efforts', label: string, values: readonly string[], hint?: string) => {
    const err = errors[key];
    return (
      <fieldset className={`field chips${err ? ' has-error' : ''}`} aria-invalid={err ? true : undefined} aria-describedby={err ? `mf-${key}-error` : undefined}>
        <legend className="field-label">{label}</legend>
        <div className="chip-row">
          {values.map((v) => (
            <label key={v} className={`chip${draft[key].includes(v) ? ' on' : ''}`}>
              <input type="checkbox" checked={draft[key].includes(v)} onChange={() => toggleIn(key, v)} />
              {v}
            </label>
          ))}
        </div>
        {hint && !err && <div className="field-hint">{hint}</div>}
        <FieldError id={`mf-${key}-error`} error={err} />
      </fieldset>
    );
  };

  const check = (key: 'structured_outputs' | 'search_only' | 'moderation_only' | 'disabled', label: string) => (
    <label className="check">
      <input type="checkbox" name={key} checked={draft[key]} onChange={(e) => set(key, e.target.checked)} />
      {label}
    </label>
  );

  const providerNames = [...new Set([...routable.map((p) => p.name), draft.provider].filter(Boolean))];
  const strengthErrors = Object.entries(errors).filter(([k]) => k === 'strengths' || k.startsWith('strengths.'));

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="model-dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <form onSubmit={submit} noValidate>
        <header className="dialog-head">
          <h2 id="model-dialog-title">{editing ? <>Edit <span className="mono">{initial.model}</span></> : 'Add a model'}</h2>
          <button type="button" className="btn btn-ghost btn-icon" aria-label="Close" onClick={props.onClose}>
            ✕
          </button>
        </header>
        <div className="dialog-body">
          {banner && (
            <div className="form-banner" role="alert">
              {banner}
            </div>
          )}
          <div className="form-section">
            <h3>Identity</h3>
            <div className="form-grid">
              {text('model', 'Model name', { readOnly: editing, mono: true, hint: editing ? 'The name is the key; add a new model to rename.' : "The vendor's name, as sent on its API." })}
              {field('provider', 'Provider', (a) => (
                <select id={a.id} name="provider" aria-invalid={a.invalid || undefined} aria-describedby={a.describedBy} value={draft.provider} onChange={(e) => set('provider', e.target.value)}>
                  {providerNames.map((n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ))}
                </select>
              ))}
            </div>
          </div>
          <div className="form-section">
            <h3>Pricing <span className="muted small">USD per million tokens</span></h3>
            <div className="form-grid four">
              {text('input_per_mtok', 'Input', { numeric: true, prefix: '$' })}
              {text('output_per_mtok', 'Output', { numeric: true, prefix: '$' })}
              {text('cached_input_per_mtok', 'Cached input', { numeric: true, prefix: '$' })}
              {text('cache_write_multiplier', 'Cache write ×', { numeric: true, hint: '1 where writes cost no extra' })}
            </div>
          </div>
          <div className="form-section">
            <h3>Capabilities</h3>
            <div className="form-grid">
              {chips('input_modalities', 'Input modalities', modalities)}
              {chips('output_modalities', 'Output modalities', modalities)}
              {field('tools', 'Tool calling', (a) => (
                <select id={a.id} name="tools" value={draft.tools} onChange={(e) => set('tools', e.target.value)}>
                  {toolLevels.map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </select>
              ))}
              {chips('reasoning_efforts', 'Reasoning efforts', efforts, 'None for models without an effort control')}
              {text('context_length', 'Context length', { numeric: true, hint: 'tokens' })}
              {text('max_output_tokens', 'Max output tokens', { numeric: true })}
            </div>
            <div className="check-row">
              {check('structured_outputs', 'Structured outputs')}
              {check('search_only', 'Search only')}
              {check('moderation_only', 'Moderation only')}
            </div>
          </div>
          <div className="form-section">
            <h3>
              Strengths <span className="muted small">prior scores 0–1 from public benchmarks; leave blank when unknown</span>
            </h3>
            <div className="strength-grid">
              {capabilities.map((c) => {
                const key = `strengths.${c}`;
                const id = `mf-strength-${c}`;
                return (
                  <label key={c} className={`strength${errors[key] ? ' has-error' : ''}`} htmlFor={id}>
                    <span>{c.replace('_', ' ')}</span>
                    <input
                      id={id}
                      inputMode="decimal"
                      placeholder="–"
                      aria-invalid={errors[key] ? true : undefined}
                      value={draft.strengths[c] ?? ''}
                      onChange={(e) => set('strengths', { ...draft.strengths, [c]: e.target.value })}
                    />
                  </label>
                );
              })}
            </div>
            {strengthErrors.map(([k, v]) => (
              <div key={k} className="field-error">
                {k.replace('strengths.', '')}: {v}
              </div>
            ))}
          </div>
          <div className="form-section">
            <h3>Routing</h3>
            <div className="form-grid">
              {text('failover', 'Failover', { mono: true, hint: 'Model names on other providers, in preference order, comma separated' })}
              {text('weights', 'Weights', { mono: true, hint: 'The model across vendors (e.g. llama-3.3-70b-instruct): a pinned call fails over only to the same weights' })}
              <div className="field">
                <span className="field-label">State</span>
                {check('disabled', 'Disabled (out of routing)')}
              </div>
            </div>
          </div>
        </div>
        <footer className="dialog-foot">
          {editing && <ConfirmButton label="Remove model" confirmLabel="Click again to remove" onConfirm={remove} disabled={busy} />}
          <span className="spacer" />
          <button type="button" className="btn btn-ghost" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Saving…' : editing ? 'Save changes' : 'Add model'}
          </button>
        </footer>
      </form>
    </dialog>
  );
}
