// A workflow's recordings, newest first, a page at a time: what capture kept of each call
// (metadata, or the request as the vendor saw it and the stored response).
import { useState } from 'react';
import { Badge } from '../admin/ui.tsx';
import { workflowRecordingsQuery } from './queries.ts';
import { useQuery } from './useQuery.ts';

const PAGE = 20;

export function RecordingsPanel(props: { id: string; onSignedOut: () => void }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const { data, error } = useQuery(workflowRecordingsQuery, { id: props.id, limit: PAGE, ...(cursor ? { cursor } : {}) }, props.onSignedOut);
  return (
    <section className="dash-panel" aria-labelledby="recordings">
      <h2 id="recordings">Recordings</h2>
      {error && <p className="field-error">{error}</p>}
      {!data && !error && <p className="muted">Loading…</p>}
      {data && data.recordings.data.length === 0 && <p className="muted small">Nothing recorded: see the capture settings.</p>}
      {data &&
        data.recordings.data.map((r) => (
          <details key={r.id} className="dash-step">
            <summary>
              <span className="small muted">{new Date(r.createdAt).toLocaleString()}</span> <span className="strong">{r.step?.label ?? '—'}</span> <span className="mono small">{r.servedModel ?? r.requestedModel}</span>{' '}
              <Badge tone={r.status < 400 ? 'ok' : 'danger'}>{r.status}</Badge> <Badge tone="muted">{r.content}</Badge> {r.redacted && <Badge tone="info">redacted</Badge>}
              <span className="muted small">
                {' '}
                {r.usage.promptTokens} + {r.usage.completionTokens} tokens
              </span>
            </summary>
            {r.request ? <pre className="mono small">{JSON.stringify(r.request, null, 2)}</pre> : <p className="muted small">Metadata only.</p>}
            {r.response ? <pre className="mono small">{JSON.stringify(r.response, null, 2)}</pre> : null}
          </details>
        ))}
      <div className="dash-actions">
        {cursors.length > 0 && (
          <button type="button" className="btn btn-ghost btn-small" onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer
          </button>
        )}
        {data?.recordings.nextCursor && (
          <button type="button" className="btn btn-ghost btn-small" onClick={() => setCursors([...cursors, data.recordings.nextCursor!])}>
            Older
          </button>
        )}
      </div>
    </section>
  );
}
