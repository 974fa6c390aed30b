// The guard settings over GraphQL (spec 4.5): PII redaction and the prompt-injection policy.
import { guardSettingsPatch, injectionPolicy, piiKinds, type GuardSettings } from '@optimizer/schema';
import { guardSettings, putGuardSettings } from '../../domain/guard.ts';
import { type Builder, capability, reader, settingsWire } from '../builder.ts';

export function registerGuard(builder: Builder) {
  const PiiKind = builder.enumType('PiiKind', { values: piiKinds });
  const InjectionPolicy = builder.enumType('InjectionPolicy', {
    description: '`allow`: not looked for; `flag`: recorded on the call; `block`: refused before any vendor call.',
    values: injectionPolicy.options,
  });

  const Guard = builder.objectRef<GuardSettings>('GuardSettings').implement({
    fields: (t) => ({
      redactPii: t.exposeBoolean('redact_pii'),
      piiKinds: t.field({ type: [PiiKind], description: 'What is redacted when redactPii is on.', resolve: (g) => g.pii_kinds }),
      injection: t.field({ type: InjectionPolicy, resolve: (g) => g.injection }),
    }),
  });

  const GuardInput = builder.inputType('GuardSettingsInput', {
    description: 'Merges into the guard settings, as PUT /v1/settings/guard does: a field left out keeps its value, null returns it to its default.',
    fields: (t) => ({ redactPii: t.boolean(), piiKinds: t.field({ type: [PiiKind] }), injection: t.field({ type: InjectionPolicy }) }),
  });

  builder.queryFields((t) => ({
    guardSettings: t.field({ type: Guard, resolve: reader(guardSettings) }),
  }));

  builder.mutationFields((t) => ({
    setGuardSettings: t.field({ type: Guard, args: { input: t.arg({ type: GuardInput, required: true }) }, resolve: capability(guardSettingsPatch, putGuardSettings, settingsWire()) }),
  }));
}
