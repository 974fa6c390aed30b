// Outcome signals (spec 2.4): attributed to the calls of a run's step, from the key's workflow.
// The run and step ids may hold any text a client sends; the domain refuses what cannot be
// stored, with the same words on every door.
import { z } from 'zod';
import { outcomeRequest, outcomeSignals } from '@optimizer/schema';
import { reportOutcome } from '../domain/outcomes.ts';
import { capability } from './capability.ts';
import { graphqlName, named } from './shapes.ts';

graphqlName('HumanVerdict', outcomeSignals.shape.human_verdict.unwrap());

const OutcomeResult = named('OutcomeResult', z.object({ run_id: z.string(), step_id: z.string(), score: z.number(), calls: z.array(z.string()) }).describe('The outcome as recorded.'));

export const outcomes = {
  report: capability({
    auth: 'control',
    input: outcomeRequest,
    output: OutcomeResult,
    run: reportOutcome,
    freeText: true,
    rest: {
      method: 'post',
      path: '/v1/outcomes',
      status: 202,
      tag: 'Gateway',
      summary: 'Report the outcome of a step',
      description: 'Attributed to the step of the run; send it once the result is known.',
      answer: 'Accepted.',
      errors: ['not_found', 'invalid_request'],
    },
    graphql: {
      name: 'reportOutcome',
      description: "Attributes outcome signals to the calls of a run's step.",
      inputTypes: { signals: { name: 'OutcomeSignalsInput', description: 'At least one signal.' } },
      inputDescriptions: { 'signals.score': 'In [0, 1].' },
    },
  }),
};
