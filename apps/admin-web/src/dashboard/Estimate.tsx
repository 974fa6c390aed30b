// A retention estimate shown as a range that cannot read below 0 %, with why when it was clamped.
import { retentionRange } from './money.ts';

export function Estimate(props: { retention: number; lcb: number }) {
  const r = retentionRange(props.retention, props.lcb);
  return (
    <span className="tabular" title={r.note ?? `lower bound ${(props.lcb * 100).toFixed(1)}% to the estimate ${(props.retention * 100).toFixed(1)}%`} data-testid="estimate">
      {r.text}
      {r.note && (
        <sup className="muted" aria-label={r.note}>
          *
        </sup>
      )}
    </span>
  );
}
