// Outcome signals over GraphQL (spec 2.4).
import { outcomeRequest, outcomeSignals } from '@optimizer/schema';
import { reportOutcome } from '../../domain/outcomes.ts';
import { type Builder, capability, toWireDeep } from '../builder.ts';

export function registerOutcomes(builder: Builder) {
  type Result = Awaited<ReturnType<typeof reportOutcome>>;

  const HumanVerdict = builder.enumType('HumanVerdict', { values: outcomeSignals.shape.human_verdict.unwrap().options });

  const Signals = builder.inputType('OutcomeSignalsInput', {
    description: 'At least one signal.',
    fields: (t) => ({
      schemaValid: t.boolean(),
      toolExecuted: t.boolean(),
      retried: t.boolean(),
      runCompleted: t.boolean(),
      humanVerdict: t.field({ type: HumanVerdict }),
      score: t.float({ description: 'In [0, 1].' }),
    }),
  });

  const Outcome = builder.objectRef<Result>('OutcomeResult').implement({
    fields: (t) => ({ runId: t.exposeString('run_id'), stepId: t.exposeString('step_id'), score: t.exposeFloat('score'), calls: t.exposeStringList('calls') }),
  });

  builder.mutationFields((t) => ({
    reportOutcome: t.field({
      type: Outcome,
      description: "Attributes outcome signals to the calls of a run's step.",
      args: { runId: t.arg.string({ required: true }), stepId: t.arg.string({ required: true }), signals: t.arg({ type: Signals, required: true }) },
      resolve: capability(outcomeRequest, reportOutcome, (args) => toWireDeep(args)),
    }),
  }));
}
