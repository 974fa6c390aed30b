// Routing settings: the quality floor, baseline and judge models and allowed providers. The
// form checks with the server's own schema before it sends, so it refuses what the server
// would; what it does not show is sent back unchanged (the write replaces the settings).
import { useEffect, useState, type FormEvent } from 'react';
import { routingSettingsWrite } from '@optimizer/schema';
import { FieldError, useNotify } from '../admin/ui.tsx';
import { gql } from './client.ts';
import { GqlError } from '../graphql-client.ts';
import { routingSettingsQuery, saveRoutingMutation } from './queries.ts';
import { useQuery } from './useQuery.ts';
import { ProtectionSettings } from './ProtectionSettings.tsx';
import type { RoutingSettingsInput } from '../gql/graphql.ts';

const fieldOf: Record<string, string> = { quality_floor: 'qualityFloor', baseline_model: 'baselineModel', judge_model: 'judgeModel', allowed_providers: 'allowedProviders' };

export function SettingsView(props: { onSignedOut: () => void }) {
  const { data, error, reload } = useQuery(routingSettingsQuery, {}, props.onSignedOut);
  const notify = useNotify();
  const [form, setForm] = useState({ qualityFloor: '', baselineModel: '', judgeModel: '', allowedProviders: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => {
    const r = data?.routingSettings;
    if (r) setForm({ qualityFloor: r.qualityFloor?.toString() ?? '', baselineModel: r.baselineModel ?? '', judgeModel: r.judgeModel ?? '', allowedProviders: (r.allowedProviders ?? []).join(', ') });
  }, [data]);
  if (error) return <p className="field-error">{error}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  const current = data.routingSettings;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const edited = {
      quality_floor: form.qualityFloor.trim() === '' ? undefined : Number(form.qualityFloor),
      baseline_model: form.baselineModel.trim() || undefined,
      judge_model: form.judgeModel.trim() || undefined,
      allowed_providers: form.allowedProviders.trim() ? form.allowedProviders.split(',').map((x) => x.trim()).filter(Boolean) : undefined,
    };
    const checked = routingSettingsWrite.safeParse(edited);
    if (!checked.success) {
      setErrors(Object.fromEntries(checked.error.issues.map((i) => [fieldOf[String(i.path[0])] ?? 'form', i.message])));
      return;
    }
    setErrors({});
    const input: RoutingSettingsInput = {
      mode: current.mode,
      tiebreak: current.tiebreak,
      ladders: current.ladders,
      band: current.band,
      learningMode: current.learningMode,
      advancedSearch: current.advancedSearch,
      exploration: current.exploration,
      cache: current.cache,
      qualityFloor: edited.quality_floor,
      baselineModel: edited.baseline_model,
      judgeModel: edited.judge_model,
      allowedProviders: edited.allowed_providers,
    };
    gql(saveRoutingMutation, { input }).then(
      () => {
        notify('ok', 'Routing settings saved.');
        reload();
      },
      (err: unknown) => {
        const f = err instanceof GqlError && err.field ? err.field : 'form';
        setErrors({ [f]: err instanceof Error ? err.message : String(err) });
      },
    );
  };
  const field = (name: keyof typeof form, label: string, hint: string) => (
    <label className="dash-field">
      {label}
      <input name={name} value={form[name]} aria-invalid={errors[name] ? true : undefined} aria-describedby={`${name}-error`} onChange={(e) => setForm({ ...form, [name]: e.target.value })} />
      <span className="muted small">{hint}</span>
      <FieldError id={`${name}-error`} error={errors[name]} />
    </label>
  );
  return (
    <div className="dash-grid">
      <section className="dash-panel">
        <h2>Routing settings</h2>
        <form className="dash-form" onSubmit={submit} noValidate>
          {field('qualityFloor', 'Quality floor', 'Share of the baseline’s quality every step must keep, 0 to 1 (default 0.95).')}
          {field('baselineModel', 'Baseline model', 'What the saving is measured against and what a step serves until it settles.')}
          {field('judgeModel', 'Judge model', 'The model that grades answers while a step learns.')}
          {field('allowedProviders', 'Allowed providers', 'Comma-separated; empty allows every provider with a key.')}
          <FieldError id="form-error" error={errors.form} />
          <button className="btn btn-primary">Save</button>
        </form>
      </section>
      <ProtectionSettings onSignedOut={props.onSignedOut} />
    </div>
  );
}
