// The tenant's settings over GraphQL: routing (spec 4.5) and stored provider keys (never
// the key). The routing write goes through the same schema as REST's raw write and merges as
// it does (a field left out keeps its value, null returns it to its default); `ladders` is
// keyed by the tenant's tier names, so it is JSON and its keys stay as sent.
import { providerRef, putProviderKeyInput, routingSettingsPatch, routingSettingsWrite, type RoutingSettingsView } from '@optimizer/schema';
import { listProviderKeys, putProviderKey, putRoutingSettings, removeProviderKey, routingSettings } from '../../domain/settings.ts';
import { type Builder, capability, reader, settingsWire } from '../builder.ts';

export function registerSettings(builder: Builder) {
  type Exploration = RoutingSettingsView['exploration'];
  type Cache = RoutingSettingsView['cache'];
  const shape = routingSettingsWrite.shape;

  const RoutingMode = builder.enumType('RoutingMode', { values: shape.mode.unwrap().options });
  const Tiebreak = builder.enumType('RoutingTiebreak', { values: shape.tiebreak.unwrap().options });
  const LearningMode = builder.enumType('LearningMode', { values: shape.learning_mode.unwrap().options });

  const ExplorationRef = builder.objectRef<Exploration>('ExplorationBudget').implement({
    fields: (t) => ({
      stepShare: t.exposeFloat('step_share', { nullable: true }),
      stepBudgetUsd: t.exposeFloat('step_budget_usd', { nullable: true }),
      dailyBudgetUsd: t.exposeFloat('daily_budget_usd', { nullable: true }),
    }),
  });

  const CacheRef = builder.objectRef<Cache>('CacheSettings').implement({
    fields: (t) => ({
      exact: t.exposeBoolean('exact', { nullable: true }),
      semantic: t.exposeBoolean('semantic', { nullable: true }),
      ttlSeconds: t.exposeInt('ttl_seconds', { nullable: true }),
      semanticThreshold: t.exposeFloat('semantic_threshold', { nullable: true }),
    }),
  });

  const Routing = builder.objectRef<RoutingSettingsView>('RoutingSettings').implement({
    description: 'The effective routing settings: the defaults filled in; a null default depends on the call (docs/routing-settings.md).',
    fields: (t) => ({
      mode: t.field({ type: RoutingMode, nullable: true, resolve: (r) => r.mode }),
      allowedProviders: t.exposeStringList('allowed_providers', { nullable: true }),
      tiebreak: t.field({ type: Tiebreak, nullable: true, resolve: (r) => r.tiebreak }),
      ladders: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.ladders }),
      band: t.exposeFloat('band', { nullable: true }),
      learningMode: t.field({ type: LearningMode, nullable: true, resolve: (r) => r.learning_mode }),
      advancedSearch: t.exposeBoolean('advanced_search', { nullable: true }),
      baselineModel: t.exposeString('baseline_model', { nullable: true }),
      judgeModel: t.exposeString('judge_model', { nullable: true }),
      qualityFloor: t.exposeFloat('quality_floor', { nullable: true }),
      exploration: t.field({ type: ExplorationRef, nullable: true, resolve: (r) => r.exploration }),
      cache: t.field({ type: CacheRef, nullable: true, resolve: (r) => r.cache }),
    }),
  });

  const ExplorationInput = builder.inputType('ExplorationBudgetInput', {
    fields: (t) => ({ stepShare: t.float(), stepBudgetUsd: t.float(), dailyBudgetUsd: t.float() }),
  });

  const CacheInput = builder.inputType('CacheSettingsInput', {
    fields: (t) => ({ exact: t.boolean(), semantic: t.boolean(), ttlSeconds: t.int(), semanticThreshold: t.float() }),
  });

  const RoutingInput = builder.inputType('RoutingSettingsInput', {
    description: 'Merges into the routing settings, as PUT /v1/settings/routing does: a field left out keeps its value, null returns it to its default.',
    fields: (t) => ({
      mode: t.field({ type: RoutingMode }),
      allowedProviders: t.stringList(),
      tiebreak: t.field({ type: Tiebreak }),
      ladders: t.field({ type: 'JSON', description: 'Tier name → models, cheapest first.' }),
      band: t.float(),
      learningMode: t.field({ type: LearningMode }),
      advancedSearch: t.boolean(),
      baselineModel: t.string(),
      judgeModel: t.string(),
      qualityFloor: t.float(),
      exploration: t.field({ type: ExplorationInput }),
      cache: t.field({ type: CacheInput }),
    }),
  });

  type KeyView = ReturnType<typeof listProviderKeys>[number];

  const ProviderKey = builder.objectRef<KeyView>('ProviderKey').implement({
    description: 'A provider with a stored key of the tenant; never the key.',
    fields: (t) => ({ provider: t.exposeString('provider'), keySet: t.exposeBoolean('key_set'), updatedAt: t.exposeString('updated_at') }),
  });

  const ProviderKeyState = builder.objectRef<{ provider: string; key_set: boolean }>('ProviderKeyState').implement({
    fields: (t) => ({ provider: t.exposeString('provider'), keySet: t.exposeBoolean('key_set') }),
  });

  const LADDERS = new Set(['ladders']);

  builder.queryFields((t) => ({
    routingSettings: t.field({ type: Routing, resolve: reader(routingSettings) }),
    providerKeys: t.field({ type: [ProviderKey], resolve: reader(listProviderKeys) }),
  }));

  builder.mutationFields((t) => ({
    setRoutingSettings: t.field({
      type: Routing,
      args: { input: t.arg({ type: RoutingInput, required: true }) },
      resolve: capability(routingSettingsPatch, putRoutingSettings, settingsWire(LADDERS)),
    }),
    putProviderKey: t.field({
      type: ProviderKeyState,
      description: 'Stores (sealed) a provider key; production runs on stored keys.',
      args: { provider: t.arg.string({ required: true }), key: t.arg.string({ required: true }) },
      resolve: capability(putProviderKeyInput, putProviderKey),
    }),
    removeProviderKey: t.field({ type: ProviderKeyState, args: { provider: t.arg.string({ required: true }) }, resolve: capability(providerRef, removeProviderKey) }),
  }));
}
