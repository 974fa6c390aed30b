// Calls, activity and savings (spec 4.1): the tenant's metered calls, one call, the raw
// timeline of vendor attempts, and the savings totals and series.
import { z } from 'zod';
import { activityQuery, breakdownQuery, callRef, callsQuery, savingsSeriesQuery } from '@optimizer/schema';
import { breakdown as moneyBreakdown, getCall, listActivity, listCalls, savings as savingsTotals, savingsSeries as series } from '../domain/calls.ts';
import { capability } from './capability.ts';
import { ActivityEntry, Call, Savings, SavingsSeries } from './views/calls.ts';
import { Breakdown } from './views/breakdown.ts';

const tag = 'Calls and savings';

export const calls = {
  list: capability({
    auth: 'control',
    input: callsQuery,
    output: z.array(Call),
    run: listCalls,
    rest: {
      method: 'get',
      path: '/v1/calls',
      list: true,
      tag,
      summary: 'Per-call detail',
      description:
        'Routed model, step, run, policy, saving, reasons (as text and as fields), grades, cost, cache and guardrail findings, newest first; filtered by agent, step, model, run, cache, outcome and time.',
      answer: 'The calls.',
      errors: ['not_found'],
    },
    graphql: {
      name: 'calls',
      description:
        'Metered calls, newest first; `agent`, `step`, `model`, `run`, `cache` (hit or miss), `outcome` (ok or error), `from` and `to` narrow them; `startingAfter` (the last call id of a page) reads the next page.',
    },
  }),
  get: capability({
    auth: 'control',
    input: callRef,
    output: Call,
    run: getCall,
    rest: { method: 'get', path: '/v1/calls/:id', tag, summary: 'One call', description: 'A call by its id (the `x-optimizer-call-id` header of its answer), with every attempt it made at a vendor.', answer: 'The call.', errors: ['not_found'] },
    graphql: { name: 'call', description: 'One call by its id (the `x-optimizer-call-id` header of its answer).' },
  }),
  activity: capability({
    auth: 'control',
    input: activityQuery,
    output: z.array(ActivityEntry),
    run: listActivity,
    rest: { method: 'get', path: '/v1/activity', list: true, tag, summary: 'The raw metered timeline', answer: 'The activity rows.' },
    graphql: { name: 'activity' },
  }),
};

export const savings = capability({
  auth: 'control',
  output: Savings,
  run: savingsTotals,
  rest: { method: 'get', path: '/v1/dashboard/savings', tag, summary: 'Savings totals split by source', answer: 'The totals (USD).' },
  graphql: { name: 'savings' },
});

export const savingsSeries = capability({
  auth: 'control',
  input: savingsSeriesQuery,
  output: SavingsSeries,
  run: series,
  rest: { method: 'get', path: '/v1/dashboard/savings/series', tag, summary: 'Savings over time', answer: 'Savings in buckets over the last `days`.' },
  graphql: { name: 'savingsSeries', description: 'Savings over the last `days`, in buckets of equal width from the first call to the last.' },
});

export const breakdown = capability({
  auth: 'control',
  input: breakdownQuery,
  output: Breakdown,
  run: moneyBreakdown,
  rest: {
    method: 'get',
    path: '/v1/dashboard/breakdown',
    tag,
    summary: 'Where the money went',
    description: 'Over the last `days`: the saving per step and per source with the exploration spend apart, and the traffic per model over time with the exploration spend as its own series.',
    answer: 'The breakdown (USD).',
  },
  graphql: { name: 'breakdown', description: 'The saving per step and per source, and the traffic per model over time, over the last `days`.' },
});
