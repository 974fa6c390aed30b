// Calls: the newest 500 with their model, cost, saving and the reasons behind the choice, and
// 500 older ones at a time on request; filtered by text and status, 25 to a page. A call opens
// onto its detail: guard findings and grades.
import { Fragment, useMemo, useState } from 'react';
import { Badge } from '../admin/ui.tsx';
import { CallDetail } from './CallDetail.tsx';
import { gql, signedOut, usd } from './client.ts';
import { callListQuery } from './queries.ts';
import { useQuery } from './useQuery.ts';

const PAGE = 25;
/** Calls fetched at a time: the newest at first, older ones on request. */
const BATCH = 500;

function loadCalls(startingAfter?: string) {
  return gql(callListQuery, { limit: BATCH, ...(startingAfter ? { startingAfter } : {}) }).then((d) => d.calls);
}

type Call = Awaited<ReturnType<typeof loadCalls>>[number];

export function CallsView(props: { onSignedOut: () => void }) {
  const { data, error } = useQuery(callListQuery, { limit: BATCH }, props.onSignedOut);
  const [older, setOlder] = useState<{ calls: Call[]; done: boolean; loading: boolean; error: string | null }>({ calls: [], done: false, loading: false, error: null });
  const [filter, setFilter] = useState('');
  const [status, setStatus] = useState<'all' | 'ok' | 'error' | 'cached'>('all');
  const [page, setPage] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const all = useMemo(() => [...(data?.calls ?? []), ...older.calls], [data, older.calls]);
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return all.filter((c) => {
      if (status === 'ok' && c.status >= 400) return false;
      if (status === 'error' && c.status < 400) return false;
      if (status === 'cached' && !c.cache.hit) return false;
      return !f || [c.model, c.routedModel ?? '', c.provider ?? '', c.id, ...c.reasons, ...c.guardrailFindings.map((g) => g.kind)].some((x) => x.toLowerCase().includes(f));
    });
  }, [all, filter, status]);
  if (error) return <p className="field-error">{error}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  const more = !older.done && (older.calls.length > 0 || data.calls.length === BATCH);
  const loadOlder = () => {
    setOlder((o) => ({ ...o, loading: true, error: null }));
    loadCalls(all.at(-1)?.id).then(
      (calls) => setOlder((o) => ({ calls: [...o.calls, ...calls], done: calls.length < BATCH, loading: false, error: null })),
      (e: unknown) => {
        if (signedOut(e)) props.onSignedOut();
        else setOlder((o) => ({ ...o, loading: false, error: e instanceof Error ? e.message : String(e) }));
      },
    );
  };
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const shown = rows.slice(page * PAGE, page * PAGE + PAGE);
  return (
    <section className="dash-panel">
      <h2>Calls</h2>
      <div className="dash-filters">
        <input
          aria-label="Filter calls"
          placeholder="Filter by model, provider, reason…"
          value={filter}
          onChange={(e) => {
            setFilter(e.target.value);
            setPage(0);
          }}
        />
        <select
          aria-label="Status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as typeof status);
            setPage(0);
          }}
        >
          <option value="all">All</option>
          <option value="ok">Answered</option>
          <option value="error">Failed</option>
          <option value="cached">From cache</option>
        </select>
        <span className="muted small">{rows.length} calls</span>
      </div>
      <div className="dash-table-wrap">
        <table className="dash-table">
          <thead>
            <tr>
              <th>When</th>
              <th>Model</th>
              <th className="num">Baseline</th>
              <th className="num">Cost</th>
              <th className="num">Saved</th>
              <th>Why</th>
              <th>
                <span className="sr-only">Detail</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((c) => (
              <Fragment key={c.id}>
                <tr>
                  <td className="small muted">{new Date(c.createdAt).toLocaleString()}</td>
                  <td>
                    <span className="mono">{c.routedModel ?? c.model}</span> {c.status >= 400 && <Badge tone="danger">{c.errorCode ?? c.status}</Badge>}
                    {c.cache.hit && <Badge tone="ok">cache</Badge>}
                    {c.guardrailFindings.length > 0 && <Badge tone="info">guard</Badge>}
                  </td>
                  <td className="num tabular">{usd(c.cost.baseline)}</td>
                  <td className="num tabular">{usd(c.cost.actual)}</td>
                  <td className="num tabular">{usd(c.saving)}</td>
                  <td className="small">{c.reasons.join('; ')}</td>
                  <td>
                    <button type="button" className="btn btn-ghost btn-small" aria-expanded={open === c.id} aria-label={`Detail of call ${c.id}`} onClick={() => setOpen(open === c.id ? null : c.id)}>
                      {open === c.id ? 'Hide' : 'Detail'}
                    </button>
                  </td>
                </tr>
                {open === c.id && (
                  <tr>
                    <td colSpan={7}>
                      <CallDetail findings={c.guardrailFindings} grades={c.grades} />
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
