// The catalog over GraphQL: the Model type (every profile field of the catalog), its
// queries and the writes, which call the same service functions as REST.
import { capabilitySchema, modalitySchema, modelProfileSchema, reasoningEffortSchema, type Capability, type ModelProfile } from '@optimizer/schema';
import { putModel, removeModel, setModelDisabled } from '../admin/catalog.ts';
import { ApiError } from '../errors.ts';
import { ADMIN_FIELD, adminServices, type Builder, toWire } from './builder.ts';

export function registerCatalog(builder: Builder) {
  const Modality = builder.enumType('Modality', { values: modalitySchema.options });
  const ReasoningEffort = builder.enumType('ReasoningEffort', { values: reasoningEffortSchema.options });
  const CapabilityEnum = builder.enumType('Capability', { values: capabilitySchema.options });
  const ToolSupport = builder.enumType('ToolSupport', { values: modelProfileSchema.shape.tools.options });

  interface StrengthShape {
    capability: Capability;
    score: number;
  }

  const Strength = builder.objectRef<StrengthShape>('Strength').implement({
    description: 'A prior capability score in [0, 1] from public benchmarks; not a measurement.',
    fields: (t) => ({
      capability: t.field({ type: CapabilityEnum, resolve: (s) => s.capability }),
      score: t.exposeFloat('score'),
    }),
  });

  const Model = builder.objectRef<ModelProfile>('Model').implement({
    description: 'One model the gateway can price and route to. Prices are USD per million tokens on the vendor standard tier.',
    fields: (t) => ({
      model: t.exposeString('model', { description: "The vendor's model name as sent on its API." }),
      provider: t.exposeString('provider', { description: 'A built-in vendor or a custom provider (lowercase id).' }),
      inputPerMtok: t.exposeFloat('input_per_mtok'),
      outputPerMtok: t.exposeFloat('output_per_mtok'),
      cachedInputPerMtok: t.exposeFloat('cached_input_per_mtok', { description: "Input tokens read from the vendor's prompt cache." }),
      cacheWriteMultiplier: t.exposeFloat('cache_write_multiplier', { description: 'Multiplier on inputPerMtok for cache-write tokens.' }),
      inputModalities: t.field({ type: [Modality], resolve: (m) => m.input_modalities }),
      outputModalities: t.field({ type: [Modality], resolve: (m) => m.output_modalities }),
      tools: t.field({ type: ToolSupport, resolve: (m) => m.tools }),
      structuredOutputs: t.exposeBoolean('structured_outputs'),
      reasoningEfforts: t.field({ type: [ReasoningEffort], resolve: (m) => m.reasoning_efforts }),
      contextLength: t.exposeInt('context_length'),
      maxOutputTokens: t.exposeInt('max_output_tokens'),
      searchOnly: t.exposeBoolean('search_only'),
      moderationOnly: t.exposeBoolean('moderation_only'),
      strengths: t.field({
        type: [Strength],
        resolve: (m) => Object.entries(m.strengths).map(([capability, score]) => ({ capability: capability as Capability, score: score! })),
      }),
      disabled: t.exposeBoolean('disabled', { description: 'Out of routing; the row and its evidence stay.' }),
      failover: t.exposeStringList('failover', { description: 'Equivalent-or-stronger models on other providers, in preference order.' }),
      weights: t.exposeString('weights', { nullable: true, description: 'The model across vendors: profiles with the same weights are the same model (a pinned call fails over only among them).' }),
    }),
  });

  const StrengthInput = builder.inputType('StrengthInput', {
    fields: (t) => ({
      capability: t.field({ type: CapabilityEnum, required: true }),
      score: t.float({ required: true }),
    }),
  });

  const ModelInput = builder.inputType('ModelInput', {
    description: 'A full model profile. Left-out optional fields take the same defaults as on REST.',
    fields: (t) => ({
      model: t.string({ required: true }),
      provider: t.string({ required: true }),
      inputPerMtok: t.float({ required: true }),
      outputPerMtok: t.float({ required: true }),
      cachedInputPerMtok: t.float({ required: true }),
      cacheWriteMultiplier: t.float({ required: true }),
      inputModalities: t.field({ type: [Modality], required: true }),
      outputModalities: t.field({ type: [Modality], required: true }),
      tools: t.field({ type: ToolSupport, required: true }),
      structuredOutputs: t.boolean({ required: true }),
      reasoningEfforts: t.field({ type: [ReasoningEffort], required: true }),
      contextLength: t.int({ required: true }),
      maxOutputTokens: t.int({ required: true }),
      searchOnly: t.boolean(),
      moderationOnly: t.boolean(),
      strengths: t.field({ type: [StrengthInput] }),
      disabled: t.boolean(),
      failover: t.stringList(),
      weights: t.string(),
    }),
  });

  /** The list of {capability, score} as the wire's record; a capability named twice is refused. */
  function strengthsRecord(list: readonly { capability: string; score: number }[] | null | undefined): Record<string, number> | undefined {
    if (!list) return undefined;
    const out: Record<string, number> = {};
    for (const s of list) {
      if (s.capability in out) throw new ApiError('validation_failed', `strengths names ${s.capability} twice.`, { param: 'strengths' });
      out[s.capability] = s.score;
    }
    return out;
  }

  builder.queryFields((t) => ({
    catalog: t.field({
      extensions: ADMIN_FIELD,
      type: [Model],
      description: 'Every model in the catalog, by name.',
      resolve: (_root, _args, ctx) => {
        const services = adminServices(ctx);
        return services.catalog.all();
      },
    }),
    model: t.field({
      extensions: ADMIN_FIELD,
      type: Model,
      nullable: true,
      args: { name: t.arg.string({ required: true }) },
      resolve: (_root, { name }, ctx) => {
        const services = adminServices(ctx);
        return services.catalog.get(name) ?? null;
      },
    }),
  }));

  builder.mutationFields((t) => ({
    putModel: t.field({
      extensions: ADMIN_FIELD,
      type: Model,
      description: 'Creates or replaces one model.',
      args: { input: t.arg({ type: ModelInput, required: true }) },
      resolve: (_root, { input }, ctx) => {
        const services = adminServices(ctx);
        const { strengths, ...rest } = input;
        const wire = toWire(rest);
        const record = strengthsRecord(strengths);
        return putModel(services, input.model, record ? { ...wire, strengths: record } : wire);
      },
    }),
    removeModel: t.boolean({
      extensions: ADMIN_FIELD,
      description: 'Deletes a model from the catalog; NOT_FOUND when it is not there.',
      args: { model: t.arg.string({ required: true }) },
      resolve: async (_root, { model }, ctx) => {
        const services = adminServices(ctx);
        await removeModel(services, model);
        return true;
      },
    }),
    setModelDisabled: t.field({
      extensions: ADMIN_FIELD,
      type: Model,
      description: 'Takes a model out of routing (or back in) without touching its profile.',
      args: { model: t.arg.string({ required: true }), disabled: t.arg.boolean({ required: true }) },
      resolve: (_root, { model, disabled }, ctx) => {
        const services = adminServices(ctx);
        return setModelDisabled(services, model, { disabled });
      },
    }),
  }));
}
