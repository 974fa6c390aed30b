// Calls, activity and savings (spec 4.1): the tenant's metered calls, one call, the raw
// timeline of vendor attempts, and the savings totals and series.
import { z } from 'zod';
import { activityQuery, callRef, callsQuery, savingsSeriesQuery } from '@optimizer/schema';
import { getCall, listActivity, listCalls, savings as savingsTotals, savingsSeries as series } from '../domain/calls.ts';
import { capability } from './capability.ts';
import { ActivityEntry, Call, Savings, SavingsSeries } from './views/calls.ts';

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
      description: 'Routed model, saving, reasons, grades, cost, cache and guardrail findings, newest first.',
      answer: 'The calls.',
      errors: ['not_found'],
    },
    graphql: { name: 'calls', description: 'Metered calls, newest first; `agent` narrows to one workflow; `startingAfter` (the last call id of a page) reads the next page.' },
  }),
  get: capability({
    auth: 'control',
    input: callRef,
    output: Call,
    run: getCall,
    rest: { method: 'get', path: '/v1/calls/:id', tag, summary: 'One call', description: 'A call by its id: the `x-optimizer-call-id` header of its answer.', answer: 'The call.', errors: ['not_found'] },
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
