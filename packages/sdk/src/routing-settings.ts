// The tenant's routing settings (PUT /v1/settings/routing). The schema is the server's own
// write schema from @optimizer/schema with the tier keys closed: the raw server write keeps
// a misspelled key such as ladders.premuim without complaint (spec 4.5), so this is what
// refuses it, and every other rule is the server's, not a copy.
export {
  routingSettingsClient as routingSettingsSchema,
  routingTierSchema,
  routingTiers,
  type RoutingSettingsClient as RoutingSettings,
  type RoutingTier,
} from '@optimizer/schema';
