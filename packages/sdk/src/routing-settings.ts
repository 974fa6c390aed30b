// The tenant's routing settings (PUT /v1/settings/routing). The schema is the server's own
// merge write from @optimizer/schema with the tier keys closed: the raw server write keeps
// a misspelled key such as ladders.premuim without complaint (spec 4.5), so this is what
// refuses it, and every other rule is the server's, not a copy. A write carries only the
// fields it changes (null: back to the default); a read is every field, defaults filled in.
export {
  routingSettingsClientPatch as routingSettingsSchema,
  routingSettingsView,
  routingTierSchema,
  routingTiers,
  type RoutingSettingsView as RoutingSettings,
  type RoutingSettingsClientPatch as RoutingSettingsWrite,
  type RoutingTier,
} from '@optimizer/schema';
