// The catalog: a sortable, filterable table with inline price edits (saved on Enter or
// when the field loses focus), a routing switch per model, and the full-profile form.
import { useEffect, useMemo, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import type { ModelProfile } from '@optimizer/schema';
import type { Call } from './call.ts';
import { ModelDialog } from './ModelForm.tsx';
import { putModelMutation, setModelDisabledMutation } from './operations.ts';
import { toInput, toProfile, validateProfile, type Model } from './profile.ts';
import type { ProviderRow } from './ProvidersView.tsx';
import { Badge, Switch, useNotify } from './ui.tsx';

type SortKey = 'model' | 'provider' | 'input' | 'output';
type PriceField = 'input_per_mtok' | 'output_per_mtok' | 'cached_input_per_mtok';

const sortValue: Record<SortKey, (m: Model) => string | number> = {
  model: (m) => m.model.toLowerCase(),
  provider: (m) => m.provider,
  input: (m) => m.inputPerMtok,
  output: (m) => m.outputPerMtok,
};

/** Money as people read it: at least two decimals, more only when the price has them. */
export function formatPrice(v: number): string {
  return Number.isInteger(Math.round(v * 1e6) / 1e4) ? v.toFixed(2) : String(v);
}

function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(2)}M`;
  if (n >= 1000) return `${+(n / 1000).toFixed(1)}k`;
  return String(n);
}

export function CatalogView(props: { models: Model[]; setModels: Dispatch<SetStateAction<Model[] | null>>; providers: ProviderRow[]; call: Call }) {
  const { models, setModels, providers, call } = props;
  const notify = useNotify();
  const [sort, setSort] = useState<{ key: SortKey; dir: 1 | -1 }>({ key: 'model', dir: 1 });
  const [filter, setFilter] = useState('');
  const [dialog, setDialog] = useState<{ mode: 'new' } | { mode: 'edit'; model: Model } | null>(null);
  const [busySwitch, setBusySwitch] = useState<string | null>(null);
  const filterRef = useRef<HTMLInputElement>(null);

  // "/" jumps to the filter, as in most tools.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.key === '/' && !/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) && !t.closest('dialog')) {
        e.preventDefault();
        filterRef.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const rows = useMemo(() => {
    const q = filter.trim().toLowerCase();
    const list = q ? models.filter((m) => m.model.toLowerCase().includes(q) || m.provider.includes(q)) : [...models];
    const get = sortValue[sort.key];
    return list.sort((a, b) => {
      const x = get(a);
      const y = get(b);
      const c = x < y ? -1 : x > y ? 1 : a.model.localeCompare(b.model);
      return c * sort.dir;
    });
  }, [models, filter, sort]);

  const replace = (m: Model) => setModels((list) => (list ? (list.some((x) => x.model === m.model) ? list.map((x) => (x.model === m.model ? m : x)) : [...list, m]) : list));

  const savePrice = async (m: Model, field: PriceField, value: number) => {
    const current = models.find((x) => x.model === m.model) ?? m;
    const v = validateProfile({ ...toProfile(current), [field]: value } satisfies ModelProfile);
    if (!v.ok) throw new Error(v.errors[field] ?? Object.values(v.errors)[0]);
    const r = await call(putModelMutation, { input: toInput(v.profile) });
    replace(r.putModel);
  };

  const toggle = async (m: Model, enabled: boolean) => {
    setBusySwitch(m.model);
    try {
      const r = await call(setModelDisabledMutation, { model: m.model, disabled: !enabled });
      replace(r.setModelDisabled);
      notify('ok', `${m.model} ${enabled ? 'is back in routing' : 'is out of routing'}.`);
    } catch (e) {
      notify('error', `Could not change ${m.model}: ${(e as Error).message}`);
    } finally {
      setBusySwitch(null);
    }
  };

  const header = (column: SortKey, label: string, numeric = false) => {
    const active = sort.key === column;
    return (
      <th aria-sort={active ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'} className={numeric ? 'num price-col' : undefined}>
        <button type="button" className={`sort${active ? ' active' : ''}`} onClick={() => setSort((s) => ({ key: column, dir: s.key === column ? ((-s.dir) as 1 | -1) : 1 }))}>
          <span>
            {label}
            {numeric && <span className="th-unit">$/M</span>}
          </span>
          <span className="sort-arrow" aria-hidden="true">
            {active ? (sort.dir === 1 ? '▲' : '▼') : '↕'}
          </span>
        </button>
      </th>
    );
  };

  return (
    <section className="panel" aria-labelledby="catalog-title">
      <div className="panel-head">
        <div>
          <h1 id="catalog-title">Model catalog</h1>
          <p className="muted small">Prices in USD per million tokens, vendor standard tier. Edit a price and press Enter; a switch takes a model out of routing.</p>
        </div>
        <div className="panel-actions">
          <div className="search">
            <input ref={filterRef} type="search" placeholder="Filter models or providers" aria-label="Filter models or providers" value={filter} onChange={(e) => setFilter(e.target.value)} />
            <kbd aria-hidden="true">/</kbd>
          </div>
          <button type="button" className="btn btn-primary" onClick={() => setDialog({ mode: 'new' })}>
            Add model
          </button>
        </div>
      </div>
      <div className="table-wrap">
        <table className="grid catalog-table">
          <thead>
            <tr>
              {header('model', 'Model')}
              {header('provider', 'Provider')}
              {header('input', 'Input', true)}
              {header('output', 'Output', true)}
              <th className="num price-col">
                Cached input<span className="th-unit">$/M</span>
              </th>
              <th className="num">Context</th>
              <th className="center">Routing</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => (
              <tr key={m.model} className={m.disabled ? 'row-off' : undefined} data-model={m.model}>
                <td className="model-cell">
                  <span className="mono">{m.model}</span>
                  {m.disabled && <Badge tone="muted">disabled</Badge>}
                </td>
                <td>
                  <span className="provider-chip">{m.provider}</span>
                </td>
                <td className="num">
                  <PriceCell value={m.inputPerMtok} label={`Input price of ${m.model}`} onSave={(v) => savePrice(m, 'input_per_mtok', v)} />
                </td>
                <td className="num">
                  <PriceCell value={m.outputPerMtok} label={`Output price of ${m.model}`} onSave={(v) => savePrice(m, 'output_per_mtok', v)} />
                </td>
                <td className="num">
                  <PriceCell value={m.cachedInputPerMtok} label={`Cached input price of ${m.model}`} onSave={(v) => savePrice(m, 'cached_input_per_mtok', v)} />
                </td>
                <td className="num muted tabular">{formatTokens(m.contextLength)}</td>
                <td className="center">
                  <Switch checked={!m.disabled} busy={busySwitch === m.model} label={`Route to ${m.model}`} onChange={(on) => void toggle(m, on)} />
                </td>
                <td className="actions">
                  <button type="button" className="btn btn-ghost btn-small" aria-label={`Edit ${m.model}`} onClick={() => setDialog({ mode: 'edit', model: m })}>
                    Edit
                  </button>
                </td>
              </tr>
            ))}
            {rows.length === 0 && (
              <tr>
                <td colSpan={8} className="empty">
                  {models.length === 0 ? 'The catalog is empty. Add a model to start routing.' : `No model matches “${filter}”.`}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {dialog && (
        <ModelDialog
          initial={dialog.mode === 'edit' ? (models.find((x) => x.model === dialog.model.model) ?? dialog.model) : null}
          models={models}
          providers={providers}
          call={call}
          onClose={() => setDialog(null)}
          onSaved={(m) => {
            replace(m);
            setDialog(null);
            notify('ok', `Saved ${m.model}.`);
          }}
          onRemoved={(name) => {
            setModels((list) => list?.filter((x) => x.model !== name) ?? list);
            setDialog(null);
            notify('ok', `Removed ${name} from the catalog.`);
          }}
        />
      )}
    </section>
  );
}

type CellState = { s: 'idle' } | { s: 'saving' } | { s: 'saved' } | { s: 'error'; message: string };

/** One price, editable in place: Enter or leaving the field saves, Escape puts it back. */
function PriceCell(props: { value: number; label: string; onSave: (v: number) => Promise<void> }) {
  const { value, onSave } = props;
  const [draft, setDraft] = useState(formatPrice(value));
  const [state, setState] = useState<CellState>({ s: 'idle' });
  const inFlight = useRef(false);
  const input = useRef<HTMLInputElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    if (document.activeElement !== input.current) setDraft(formatPrice(value));
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const commit = async () => {
    if (inFlight.current) return;
    const text = draft.trim().replace(/^\$/, '');
    const n = text === '' ? NaN : Number(text);
    if (Number.isFinite(n) && n === value) {
      setDraft(formatPrice(value));
      if (state.s === 'error') setState({ s: 'idle' });
      return;
    }
    if (!Number.isFinite(n)) return setState({ s: 'error', message: 'Enter a number' });
    inFlight.current = true;
    setState({ s: 'saving' });
    try {
      await onSave(n);
      setDraft(formatPrice(n));
      setState({ s: 'saved' });
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setState((st) => (st.s === 'saved' ? { s: 'idle' } : st)), 2500);
    } catch (e) {
      setState({ s: 'error', message: (e as Error).message });
    } finally {
      inFlight.current = false;
    }
  };

  const errorId = `${props.label.replace(/\W+/g, '-')}-error`;
  return (
    <div className={`price-cell state-${state.s}`}>
      <input
        ref={input}
        inputMode="decimal"
        aria-label={props.label}
        aria-invalid={state.s === 'error' || undefined}
        aria-describedby={state.s === 'error' ? errorId : undefined}
        value={draft}
        onChange={(e) => {
          setDraft(e.target.value);
          if (state.s === 'saved') setState({ s: 'idle' });
        }}
        onFocus={(e) => e.target.select()}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void commit();
          } else if (e.key === 'Escape') {
            setDraft(formatPrice(value));
            setState({ s: 'idle' });
          }
        }}
        onBlur={() => void commit()}
      />
      <span className="cell-status" role="status" aria-label={state.s === 'saved' ? 'Saved' : state.s === 'saving' ? 'Saving' : undefined}>
        {state.s === 'saving' ? <span className="spinner" /> : state.s === 'saved' ? '✓' : state.s === 'error' ? '!' : ''}
      </span>
      {state.s === 'error' && (
        <div className="cell-error" id={errorId} role="alert">
          {state.message}
        </div>
      )}
    </div>
  );
}
