// Billing: the wallet and dev allowance, this month's statement, the savings ledger of the last
// twelve months as a chart (saved, the fee taken from it, what the tenant kept), managed
// subscriptions, the recent ledger, a top-up (the hosted checkout page of the payment processor; the wallet is
// credited once the payment is confirmed), auto top-up and the rate limits (BillingControls).
import { useState, type FormEvent } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { topupRequest } from '@optimizer/schema';
import { FieldError } from '../admin/ui.tsx';
import { gql, pct, usd } from './client.ts';
import { GqlError } from '../graphql-client.ts';
import { billingQuery, topupMutation } from './queries.ts';
import { useQuery } from './useQuery.ts';
import { AutoTopupPanel, RateLimitsPanel } from './BillingControls.tsx';

const monthStart = () => `${new Date().toISOString().slice(0, 7)}-01`;
/** The first day of the month eleven months back: the savings chart shows a year. */
const yearStart = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1)).toISOString().slice(0, 10);
};

export function BillingView(props: { onSignedOut: () => void }) {
  const { data, error, reload } = useQuery(billingQuery, { from: monthStart(), yearFrom: yearStart() }, props.onSignedOut);
  const [amount, setAmount] = useState('20');
  const [amountError, setAmountError] = useState<string | undefined>();
  if (error) return <p className="field-error">{error}</p>;
  if (!data) return <p className="muted">Loading…</p>;
  const { billing } = data;
  const statement = data.statements[0];

  const topup = (e: FormEvent) => {
    e.preventDefault();
    const checked = topupRequest.safeParse({ amount_usd: Number(amount) });
    if (!checked.success) {
      setAmountError(checked.error.issues[0]?.message);
      return;
    }
    setAmountError(undefined);
    gql(topupMutation, { amountUsd: checked.data.amount_usd }).then(
      (r) => window.location.assign(r.createTopup.url),
      (err: unknown) => setAmountError(err instanceof GqlError || err instanceof Error ? err.message : String(err)),
    );
  };

  return (
    <div className="dash-grid">
      <section className="dash-panel" aria-labelledby="balances">
        <h2 id="balances">Balances</h2>
        <p>
          Wallet <span className="strong">{usd(billing.balances.walletUsd)}</span> · dev allowance <span className="strong">{usd(billing.balances.devAllowanceUsd)}</span>
        </p>
        <p className="muted small">
          Fee {pct(billing.prices.feeRate)} of measured savings. Platform keys: {billing.prices.platformKeys}. Own keys: {billing.prices.ownKeys}.
        </p>
        <form className="dash-form" onSubmit={topup} noValidate>
          <label className="dash-field">
            Top up (USD)
            <input name="amount" inputMode="decimal" value={amount} aria-invalid={amountError ? true : undefined} aria-describedby="amount-error" onChange={(e) => setAmount(e.target.value)} />
            <FieldError id="amount-error" error={amountError} />
          </label>
          <button className="btn btn-primary">Go to checkout</button>
        </form>
      </section>
      <AutoTopupPanel autoTopup={billing.autoTopup} reload={reload} />
      <RateLimitsPanel limits={data.rateLimits} reload={reload} />
      {statement && (
        <section className="dash-panel" aria-labelledby="statement">
          <h2 id="statement">Statement {statement.period}</h2>
          <p className="small">
            {statement.calls} calls · saved {usd(statement.savings.total)} · fees {usd(statement.feesUsd)} · usage {usd(statement.usageUsd)} · due <span className="strong">{usd(statement.amountDueUsd)}</span>
            {statement.closed ? '' : ' (open)'}
          </p>
        </section>
      )}
      <section className="dash-panel" aria-labelledby="savings-ledger">
        <h2 id="savings-ledger">Savings by month</h2>
        <p className="small">
          Saved {usd(data.savingsLedger.totals.savingUsd)} · fees {usd(data.savingsLedger.totals.feeUsd)} · kept <span className="strong">{usd(data.savingsLedger.totals.netSavingUsd)}</span> over the last twelve months.
        </p>
        <div className="dash-chart" data-testid="savings-ledger-chart">
          <ResponsiveContainer width="100%" height={220}>
            <BarChart data={data.savingsLedger.data.map((p) => ({ period: p.period, kept: p.netSavingUsd, fee: p.feeUsd }))} margin={{ top: 8, right: 12, bottom: 0, left: 4 }}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="period" fontSize={12} />
              <YAxis fontSize={12} tickFormatter={(v: number) => usd(v)} width={72} />
              <Tooltip formatter={(v) => usd(Number(v))} />
              <Legend />
              <Bar dataKey="kept" name="Kept by you" stackId="saving" fill="#2f7d4f" isAnimationActive={false} />
              <Bar dataKey="fee" name="Fee" stackId="saving" fill="#b7791f" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </section>
      <section className="dash-panel" aria-labelledby="subscriptions">
        <h2 id="subscriptions">Managed subscriptions</h2>
        {billing.subscriptions.length === 0 ? (
          <p className="muted small">None: a workflow moves to managed production with a subscription.</p>
        ) : (
          <ul className="dash-list">
            {billing.subscriptions.map((s) => (
              <li key={s.workflowId}>
                <a className="mono small" href={`#/workflows/${encodeURIComponent(s.workflowId)}`}>
                  {s.workflowId}
                </a>{' '}
                {s.status}
                {s.cancelAtPeriodEnd ? `, ends ${new Date(s.currentPeriodEnd).toLocaleDateString()}` : `, renews ${new Date(s.currentPeriodEnd).toLocaleDateString()}`}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="dash-panel" aria-labelledby="ledger">
        <h2 id="ledger">Ledger</h2>
        <div className="dash-table-wrap">
          <table className="dash-table">
            <thead>
              <tr>
                <th>When</th>
                <th>Kind</th>
                <th>Book</th>
                <th className="num">Amount</th>
              </tr>
            </thead>
            <tbody>
              {billing.ledger.map((e) => (
                <tr key={e.id}>
                  <td className="small">{new Date(e.createdAt).toLocaleString()}</td>
                  <td>{e.kind}</td>
                  <td className="small">{e.book}</td>
                  <td className="num">{usd(e.amountUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
