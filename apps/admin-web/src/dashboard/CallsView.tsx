// Calls: the newest 500 the filters select (step, model, cache, outcome, dates: asked of the
// server), 500 older ones at a time on request, searched by text and sorted by any column in
// place, 25 to a page; every call the filters select exports as CSV. Money to the micro-dollar.
// A call opens onto its detail: tokens, attempts, the policy and evidence behind it, reasons,
// grades and guard findings.
import { Fragment, useMemo, useState } from 'react';
import { Badge, useNotify } from '../admin/ui.tsx';
import { CallDetail } from './CallDetail.tsx';
import { allCalls, callsCsv, downloadText, type CallFilterVars, type CallRow } from './calls-csv.ts';
import { CallFilters, type Filters } from './CallFilters.tsx';
import { gql, signedOut, usd } from './client.ts';
import { callListQuery } from './queries.ts';
import { useQuery } from './useQuery.ts';
import { shortWhy } from './why.ts';

const PAGE = 25;
/** Calls fetched at a time: the newest at first, older ones on request. */
const BATCH = 500;

type SortKey = 'when' | 'step' | 'model' | 'latency' | 'cost' | 'saved';
const SORTS: Record<SortKey, (c: CallRow) => string | number> = {
  when: (c) => c.createdAt,
  step: (c) => c.step ?? '',
  model: (c) => c.routedModel ?? c.model,
  latency: (c) => c.latencyMs,
  cost: (c) => c.cost.actual,
  saved: (c) => c.saving,
};

/** The server's filters from the form's: a `to` date counts its whole day. */
function serverFilters(f: Filters): CallFilterVars {
  const next = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return {
    ...(f.step ? { step: f.step } : {}),
    ...(f.model ? { model: f.model } : {}),
    ...(f.cache ? { cache: f.cache } : {}),
    ...(f.outcome ? { outcome: f.outcome } : {}),
    ...(f.from ? { from: f.from } : {}),
    ...(f.to ? { to: next(f.to) } : {}),
  };
}

export function CallsView(props: { onSignedOut: () => void }) {
  const [filters, setFilters] = useState<Filters>({ step: '', model: '', cache: '', outcome: '', from: '', to: '' });
  const vars = useMemo(() => serverFilters(filters), [filters]);
  const { data, error } = useQuery(callListQuery, { ...vars, limit: BATCH }, props.onSignedOut);
  const notify = useNotify();
  const [older, setOlder] = useState<{ filters: string; calls: CallRow[]; done: boolean; loading: boolean; error: string | null }>({ filters: '', calls: [], done: false, loading: false, error: null });
  const [text, setText] = useState('');
  const [sort, setSort] = useState<{ col: SortKey; desc: boolean }>({ col: 'when', desc: true });
  const [page, setPage] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const filterSig = JSON.stringify(vars);
  const olderCalls = useMemo(() => (older.filters === filterSig ? older.calls : []), [older, filterSig]);
  const all = useMemo(() => [...(data?.calls ?? []), ...olderCalls], [data, olderCalls]);
  const rows = useMemo(() => {
    const f = text.trim().toLowerCase();
    const hit = (c: CallRow) => !f || [c.model, c.routedModel ?? '', c.provider ?? '', c.id, c.step ?? '', c.run ?? '', ...c.reasons, ...c.guardrailFindings.map((g) => g.kind)].some((x) => x.toLowerCase().includes(f));
    const by = SORTS[sort.col];
    return all.filter(hit).sort((a, b) => {
      const x = by(a);
      const y = by(b);
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return sort.desc ? -c : c;
    });
  }, [all, text, sort]);
  if (error) return <p className="field-error">{error}</p>;
  const more = data !== null && !(older.filters === filterSig && older.done) && (olderCalls.length > 0 || data.calls.length === BATCH);
  const loadOlder = () => {
    setOlder((o) => ({ ...o, filters: filterSig, calls: olderCalls, loading: true, error: null }));
    gql(callListQuery, { ...vars, limit: BATCH, startingAfter: all.at(-1)?.id ?? null }).then(
      (d) => setOlder({ filters: filterSig, calls: [...olderCalls, ...d.calls], done: d.calls.length < BATCH, loading: false, error: null }),
      (e: unknown) => {
        if (signedOut(e)) props.onSignedOut();
        else setOlder((o) => ({ ...o, loading: false, error: e instanceof Error ? e.message : String(e) }));
      },
    );
  };
  const exportCsv = async () => {
    setExporting(true);
    try {
      const calls = await allCalls(vars);
      downloadText(`calls-${new Date().toISOString().slice(0, 10)}.csv`, 'text/csv', callsCsv(calls));
      notify('ok', `${calls.length} calls exported.`);
    } catch (e) {
      if (signedOut(e)) props.onSignedOut();
      else notify('error', e instanceof Error ? e.message : String(e));
    } finally {
      setExporting(false);
    }
  };
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const shown = rows.slice(page * PAGE, page * PAGE + PAGE);
  const head = (col: SortKey, label: string, num = false) => (
    <th className={num ? 'num' : undefined} aria-sort={sort.col === col ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className={`sort${sort.col === col ? ' active' : ''}`} onClick={() => setSort({ col, desc: sort.col === col ? !sort.desc : col !== 'step' && col !== 'model' })}>
        {label}
        <span className="sort-arrow">{sort.col === col ? (sort.desc ? '▼' : '▲') : '↕'}</span>
      </button>
    </th>
  );
  return (
    <section className="dash-panel">
      <h2>Calls</h2>
      <CallFilters
        value={filters}
        onChange={(f) => {
          setFilters(f);
          setPage(0);
          setOpen(null);
        }}
        onSignedOut={props.onSignedOut}
      />
      <div className="dash-filters">
        <input
          aria-label="Filter calls"
          placeholder="Search by model, step, run, id, reason…"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setPage(0);
          }}
        />
        <span className="muted small" data-testid="call-count">
          {data ? `${rows.length} ${rows.length === 1 ? 'call' : 'calls'}` : 'Loading…'}
        </span>
        <button type="button" className="btn btn-ghost btn-small" disabled={exporting} onClick={() => void exportCsv()}>
          {exporting ? 'Exporting…' : 'Export CSV'}
        </button>
      </div>
      <div className="dash-table-wrap">
        <table className="dash-table calls-table">
          <thead>
            <tr>
              {head('when', 'When')}
              {head('step', 'Step')}
              <th>Run</th>
              {head('model', 'Model')}
              <th>Call</th>
              {head('latency', 'Latency', true)}
              {head('cost', 'Cost', true)}
              {head('saved', 'Saved', true)}
              <th>Why</th>
              <th>
                <span className="sr-only">Detail</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((c) => (
              <Fragment key={c.id}>
                <tr data-testid="call-row" data-call={c.id}>
                  <td className="small muted" data-label="When">
                    {new Date(c.createdAt).toLocaleString()}
                  </td>
                  <td data-label="Step" data-testid="call-step">
                    {c.step ?? <span className="muted">—</span>}
                  </td>
                  <td className="mono small" data-label="Run">
                    {c.run ?? <span className="muted">—</span>}
                  </td>
                  <td data-label="Model">
                    <span className="mono">{c.routedModel ?? c.model}</span> {c.status >= 400 && <Badge tone="danger">{c.errorCode ?? c.status}</Badge>}
                    {c.cache.hit && <Badge tone="ok">cache</Badge>}
                    {c.guardrailFindings.length > 0 && <Badge tone="info">guard</Badge>}
                  </td>
                  <td className="mono small" data-label="Call">
                    {c.id}
                  </td>
                  <td className="num tabular" data-label="Latency">
                    {c.latencyMs.toFixed(1)} ms
                  </td>
                  <td className="num tabular" data-label="Cost" data-testid="call-cost" data-micros={Math.round(c.cost.actual * 1e6)}>
                    {usd(c.cost.actual)}
                  </td>
                  <td className="num tabular" data-label="Saved">
                    {usd(c.saving)}
                  </td>
                  <td className="small" data-label="Why" title={c.reasons.join('\n')}>
                    {shortWhy(c)}
                  </td>
                  <td className="call-open">
                    <button type="button" className="btn btn-ghost btn-small" aria-expanded={open === c.id} aria-label={`Detail of call ${c.id}`} onClick={() => setOpen(open === c.id ? null : c.id)}>
                      {open === c.id ? 'Hide' : 'Detail'}
                    </button>
                  </td>
                </tr>
                {open === c.id && (
                  <tr className="call-detail-row">
                    <td colSpan={10}>
                      <CallDetail call={c} onSignedOut={props.onSignedOut} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
      <div className="dash-pager">
        <button type="button" className="btn btn-ghost btn-small" disabled={page === 0} onClick={() => setPage(page - 1)}>
          Previous
        </button>
        <span className="small muted">
          Page {page + 1} of {pages}
        </span>
        <button type="button" className="btn btn-ghost btn-small" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
          Next
        </button>
        {more && (
          <button type="button" className="btn btn-ghost btn-small" disabled={older.loading} onClick={loadOlder}>
            {older.loading ? 'Loading…' : `Load ${BATCH} older calls`}
          </button>
        )}
        {older.error && <span className="field-error small">{older.error}</span>}
      </div>
    </section>
  );
}
