// The billing page's two settings: auto top-up (charge the saved card once when the wallet falls
// below a threshold; turn it off) and the tenant's rate limits (requests and tokens per minute,
// within the platform's ceiling). Each is checked with the server's own schema before it is sent
// over GraphQL; a refusal from the server shows under the field it names.
import { useEffect, useState, type FormEvent } from 'react';
import { autoTopupRequest, rateLimitSettings } from '@optimizer/schema';
import { FieldError, useNotify } from '../admin/ui.tsx';
import { gql, usd } from './client.ts';
import { GqlError } from '../graphql-client.ts';
import type { BillingOverviewQuery } from '../gql/graphql.ts';
import { setAutoTopupMutation, setRateLimitsMutation } from './queries.ts';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function AutoTopupPanel(props: { autoTopup: BillingOverviewQuery['billing']['autoTopup']; reload: () => void }) {
  const notify = useNotify();
  const [threshold, setThreshold] = useState('');
  const [amount, setAmount] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const current = props.autoTopup;
  useEffect(() => {
    setThreshold(current ? String(current.thresholdUsd) : '10');
    setAmount(current ? String(current.amountUsd) : '20');
  }, [current]);

  const send = (thresholdUsd: number | null, amountUsd: number | null, done: string) =>
    gql(setAutoTopupMutation, { thresholdUsd, amountUsd }).then(
      () => {
        notify('ok', done);
        props.reload();
      },
      (err: unknown) => setErrors({ [err instanceof GqlError && err.field ? err.field : 'autoTopup']: message(err) }),
    );

  const save = (e: FormEvent) => {
    e.preventDefault();
    const checked = autoTopupRequest.safeParse({ threshold_usd: threshold.trim() === '' ? null : Number(threshold), amount_usd: amount.trim() === '' ? null : Number(amount) });
    if (!checked.success) {
      const issue = checked.error.issues[0];
      setErrors({ [issue?.path[0] === 'amount_usd' ? 'amountUsd' : 'thresholdUsd']: issue?.message ?? 'invalid' });
      return;
    }
    setErrors({});
    void send(checked.data.threshold_usd, checked.data.amount_usd, 'Auto top-up saved.');
  };

  return (
    <section className="dash-panel" aria-labelledby="auto-topup">
      <h2 id="auto-topup">Auto top-up</h2>
      <p className="muted small" data-testid="auto-topup-state">
        {current ? `On: ${usd(current.amountUsd)} when the wallet falls below ${usd(current.thresholdUsd)}.${current.paymentMethodSaved ? '' : ' No card saved yet: a checkout top-up saves one.'}` : 'Off.'}
      </p>
      <form className="dash-form" onSubmit={save} noValidate aria-label="Auto top-up">
        <label className="dash-field">
          Below (USD)
          <input name="threshold" inputMode="decimal" value={threshold} aria-invalid={errors.thresholdUsd ? true : undefined} aria-describedby="threshold-error" onChange={(e) => setThreshold(e.target.value)} />
          <FieldError id="threshold-error" error={errors.thresholdUsd} />
        </label>
        <label className="dash-field">
          Charge (USD)
          <input name="topup-amount" inputMode="decimal" value={amount} aria-invalid={errors.amountUsd ? true : undefined} aria-describedby="topup-amount-error" onChange={(e) => setAmount(e.target.value)} />
          <FieldError id="topup-amount-error" error={errors.amountUsd} />
        </label>
        <FieldError id="auto-topup-error" error={errors.autoTopup} />
        <button className="btn btn-primary">Save auto top-up</button>
        {current && (
          <button type="button" className="btn" onClick={() => void send(null, null, 'Auto top-up turned off.')}>
            Turn off
          </button>
        )}
      </form>
    </section>
  );
}

type Limits = BillingOverviewQuery['rateLimits'];
const shown = (n: number | null) => (n === null ? '' : String(n));
const ceilingText = (n: number | null) => (n === null ? 'no ceiling' : `at most ${n.toLocaleString()}`);

export function RateLimitsPanel(props: { limits: Limits; reload: () => void }) {
  const notify = useNotify();
  const { limits } = props;
  const [rpm, setRpm] = useState('');
  const [tpm, setTpm] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => {
    setRpm(shown(limits.tenant.requestsPerMinute));
    setTpm(shown(limits.tenant.tokensPerMinute));
  }, [limits]);

  const save = (e: FormEvent) => {
    e.preventDefault();
    const value = (v: string) => (v.trim() === '' ? null : Number(v));
    const keys = limits.keys.map((k) => ({ key_id: k.keyId, requests_per_minute: k.requestsPerMinute, tokens_per_minute: k.tokensPerMinute }));
    const checked = rateLimitSettings.safeParse({ tenant: { requests_per_minute: value(rpm), tokens_per_minute: value(tpm) }, keys });
    const over = (v: number | null | undefined, ceiling: number | null) => v != null && ceiling !== null && v > ceiling;
    if (!checked.success) {
      const issue = checked.error.issues[0];
      setErrors({ [issue?.path[1] === 'tokens_per_minute' ? 'tenant.tokensPerMinute' : 'tenant.requestsPerMinute']: issue?.message ?? 'invalid' });
      return;
    }
    const t = checked.data.tenant;
    if (over(t.requests_per_minute, limits.ceiling.requestsPerMinute) || over(t.tokens_per_minute, limits.ceiling.tokensPerMinute)) {
      const field = over(t.requests_per_minute, limits.ceiling.requestsPerMinute) ? 'tenant.requestsPerMinute' : 'tenant.tokensPerMinute';
      setErrors({ [field]: `Above the platform's ceiling (${ceilingText(field === 'tenant.requestsPerMinute' ? limits.ceiling.requestsPerMinute : limits.ceiling.tokensPerMinute)}).` });
      return;
    }
    setErrors({});
    const input = {
      tenant: { requestsPerMinute: t.requests_per_minute, tokensPerMinute: t.tokens_per_minute },
      keys: checked.data.keys.map((k) => ({ keyId: k.key_id, requestsPerMinute: k.requests_per_minute, tokensPerMinute: k.tokens_per_minute })),
    };
    gql(setRateLimitsMutation, { input }).then(
      () => {
        notify('ok', 'Rate limits saved.');
        props.reload();
      },
      (err: unknown) => setErrors({ [err instanceof GqlError && err.field ? err.field : 'limits']: message(err) }),
    );
  };

  return (
    <section className="dash-panel" aria-labelledby="rate-limits">
      <h2 id="rate-limits">Rate limits</h2>
      <p className="muted small">
        Per minute, for all of this account's keys together; blank holds you to the platform's ceiling ({ceilingText(limits.ceiling.requestsPerMinute)} requests, {ceilingText(limits.ceiling.tokensPerMinute)} tokens). Past a limit, calls answer 429 with Retry-After.
        {limits.keys.length > 0 ? ` ${limits.keys.length} key(s) have limits of their own (PUT /v1/settings/limits).` : ''}
      </p>
      <form className="dash-form" onSubmit={save} noValidate aria-label="Rate limits">
        <label className="dash-field">
          Requests per minute
          <input name="rpm" inputMode="numeric" value={rpm} aria-invalid={errors['tenant.requestsPerMinute'] ? true : undefined} aria-describedby="rpm-error" onChange={(e) => setRpm(e.target.value)} />
          <FieldError id="rpm-error" error={errors['tenant.requestsPerMinute']} />
        </label>
        <label className="dash-field">
          Tokens per minute
          <input name="tpm" inputMode="numeric" value={tpm} aria-invalid={errors['tenant.tokensPerMinute'] ? true : undefined} aria-describedby="tpm-error" onChange={(e) => setTpm(e.target.value)} />
          <FieldError id="tpm-error" error={errors['tenant.tokensPerMinute']} />
        </label>
        <FieldError id="limits-error" error={errors.limits} />
        <button className="btn btn-primary">Save rate limits</button>
      </form>
    </section>
  );
}
