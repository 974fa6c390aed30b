// The platform admin API (spec 4.7): catalog, aliases, the unknown-model price, providers, the
// meter's quarantine, support credit and what a new account gets. Not capabilities yet: the
// admin's GraphQL fields (catalog, providers) have shapes of their own, and tRPC is the
// tenant's door (docs/decisions.md, "Capabilities").
import { z } from 'zod';
import { adminCreditRequest, catalogAliasWriteSchema, disabledWriteSchema, modelProfileSchema, providerNameSchema, providerWriteSchema, unknownModelPriceSchema } from '@optimizer/schema';
import { modelProfileDefaults } from '../../admin/catalog.ts';
import { meterQuarantineQuery, meterQuarantineRef } from '../../routes/admin-meter.ts';
import { signupSettingsSchema, signupSettingsWrite } from '../../tenancy/signup-settings.ts';
import { bool, json, list, nullable, obj, open, ref, str, time, view } from '../json.ts';
import type { Operation } from '../operation.ts';

const providerView = open({ name: str, base_url: str, wire: str, enabled: bool, key_set: bool, built_in: bool }, 'A provider: its base URL and wire, whether a key is set (never the key).');
const catalogAliasView = obj({ alias: str, model: str });
const unknownModelPriceView = obj({ unknown_model_price: nullable(json(unknownModelPriceSchema, 'output')) });

const modelProfilePut = modelProfileSchema.partial(Object.fromEntries([...Object.keys(modelProfileDefaults), 'model'].map((k) => [k, true])) as { model: true });

/** The path parameter of the provider routes, checked as admin/providers.ts checks it. */
const providerByName = z.object({ name: providerNameSchema }).strict();

/** An entry of the meter's quarantine (meter/quarantine.ts). */
const quarantinedRow = obj({
  id: str,
  kind: { enum: ['calls', 'activity', 'events', 'evidence', 'outcomes', 'recordings', 'ledger'] },
  table: nullable(str),
  account_id: nullable(str),
  sqlstate: nullable(str),
  reason: str,
  source: { enum: ['flush', 'replay'] },
  status: { enum: ['quarantined', 'replayed', 'discarded'] },
  created_at: time,
  resolved_at: nullable(time),
  row: { description: 'The row as the meter had it: its JSON, parsed (the text when it does not parse).' },
});

export const admin: Operation[] = [
  { method: 'get', path: '/v1/admin/catalog', tag: 'Admin', summary: 'Every model with its full profile', auth: 'admin', ok: { status: 200, description: 'The catalog.', schema: list(ref('ModelProfile')) } },
  {
    method: 'put',
    path: '/v1/admin/catalog/:model',
    tag: 'Admin',
    summary: 'Create or replace one model',
    description: '`model` comes from the path (URL-encoded). Left out, `disabled`, `failover`, `strengths`, `search_only` and `moderation_only` take their defaults.',
    auth: 'admin',
    input: { schema: modelProfilePut, from: 'body' },
    ok: { status: 200, description: 'The stored profile.', schema: ref('ModelProfile') },
  },
  { method: 'delete', path: '/v1/admin/catalog/:model', tag: 'Admin', summary: 'Remove a model', auth: 'admin', ok: { status: 204, description: 'Removed.', content: 'none' }, errors: ['not_found'] },
  {
    method: 'post',
    path: '/v1/admin/catalog/:model/disabled',
    tag: 'Admin',
    summary: 'Take a model out of routing, or put it back',
    auth: 'admin',
    input: { schema: disabledWriteSchema, from: 'body' },
    ok: { status: 200, description: 'The updated profile.', schema: ref('ModelProfile') },
    errors: ['not_found'],
  },
  { method: 'get', path: '/v1/admin/catalog-aliases', tag: 'Admin', summary: 'Aliases: names priced as a catalog model', auth: 'admin', ok: { status: 200, description: 'Every alias and the model it is priced as.', schema: list(catalogAliasView) } },
  {
    method: 'put',
    path: '/v1/admin/catalog-aliases/:alias',
    tag: 'Admin',
    summary: 'Price a name (a dated snapshot) as a catalog model',
    description: 'A call naming the alias is sent to the vendor as named and priced, capped and charged as `model`. The alias must not be a catalog model.',
    auth: 'admin',
    input: { schema: catalogAliasWriteSchema, from: 'body' },
    ok: { status: 200, description: 'The alias.', schema: catalogAliasView },
    errors: ['conflict'],
  },
  { method: 'delete', path: '/v1/admin/catalog-aliases/:alias', tag: 'Admin', summary: 'Remove an alias', auth: 'admin', ok: { status: 204, description: 'Removed.', content: 'none' }, errors: ['not_found'] },
  { method: 'get', path: '/v1/admin/unknown-model-price', tag: 'Admin', summary: 'The price of models the catalog does not list', auth: 'admin', ok: { status: 200, description: 'The price in force (null: such models are served only on a tenant\'s own key).', schema: unknownModelPriceView } },
  {
    method: 'put',
    path: '/v1/admin/unknown-model-price',
    tag: 'Admin',
    summary: 'Set the price of models the catalog does not list',
    description: "On the platform's keys a model the catalog does not list is served at this price (USD per million tokens), capped and charged like any other; without a price it is refused 400 unknown_model. Overrides the UNKNOWN_MODEL_PRICE setting.",
    auth: 'admin',
    input: { schema: unknownModelPriceSchema, from: 'body' },
    ok: { status: 200, description: 'The price in force.', schema: unknownModelPriceView },
  },
  { method: 'delete', path: '/v1/admin/unknown-model-price', tag: 'Admin', summary: "Clear the admin's unknown-model price (back to the setting's)", auth: 'admin', ok: { status: 200, description: 'The price in force.', schema: unknownModelPriceView } },
  { method: 'get', path: '/v1/admin/providers', tag: 'Admin', summary: 'Registered vendors (key_set, never the key)', auth: 'admin', ok: { status: 200, description: 'The custom providers.', schema: list(providerView) } },
  {
    method: 'put',
    path: '/v1/admin/providers/:name',
    tag: 'Admin',
    summary: 'Register or update a vendor',
    auth: 'admin',
    input: { schema: providerWriteSchema.extend({ name: providerNameSchema }), from: 'body' },
    ok: { status: 200, description: 'The provider as stored (key_set, never the key).', schema: providerView },
  },
  { method: 'delete', path: '/v1/admin/providers/:name', tag: 'Admin', summary: 'Remove a vendor', auth: 'admin', input: { schema: providerByName, from: 'params' }, ok: { status: 204, description: 'Removed.', content: 'none' }, errors: ['not_found'] },
  {
    method: 'post',
    path: '/v1/admin/providers/:name/test',
    tag: 'Admin',
    summary: 'Call the vendor live to confirm its base URL and key',
    auth: 'admin',
    input: { schema: providerByName, from: 'params' },
    ok: { status: 200, description: "The probe's outcome.", schema: view('`provider` and what the probe found.') },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/admin/meter/quarantine',
    tag: 'Admin',
    summary: 'Metering rows the database refused, set aside',
    description: 'Newest first. A row PostgreSQL refuses for what it holds (SQLSTATE class 22, 23 or 54) is quarantined so the rest of its batch is written; each entry has the row, the table it was for, the reason and SQLSTATE. `status` defaults to those still quarantined.',
    auth: 'admin',
    input: { schema: meterQuarantineQuery, from: 'query' },
    ok: { status: 200, description: 'The entries.', schema: list(quarantinedRow) },
    errors: ['not_found'],
  },
  { method: 'get', path: '/v1/admin/meter/quarantine/:id', tag: 'Admin', summary: 'One quarantined metering row', auth: 'admin', input: { schema: meterQuarantineRef, from: 'params' }, ok: { status: 200, description: 'The entry.', schema: quarantinedRow }, errors: ['not_found'] },
  {
    method: 'post',
    path: '/v1/admin/meter/quarantine/:id/replay',
    tag: 'Admin',
    summary: 'Write a quarantined row again, once its cause is fixed',
    description: 'Idempotent: a row already stored is not stored twice. Refused again: 409 with the reason, and the row stays quarantined.',
    auth: 'admin',
    input: { schema: meterQuarantineRef, from: 'params' },
    ok: { status: 200, description: 'The entry, now `replayed`.', schema: quarantinedRow },
    errors: ['not_found', 'conflict'],
  },
  {
    method: 'post',
    path: '/v1/admin/meter/quarantine/:id/discard',
    tag: 'Admin',
    summary: 'Give a quarantined row up',
    auth: 'admin',
    input: { schema: meterQuarantineRef, from: 'params' },
    ok: { status: 200, description: 'The entry, now `discarded` (kept, never written).', schema: quarantinedRow },
    errors: ['not_found', 'conflict'],
  },
  {
    method: 'post',
    path: '/v1/admin/accounts/:account/credit',
    tag: 'Admin',
    summary: 'Credit an account (support credit, not a payment)',
    auth: 'admin',
    input: { schema: adminCreditRequest, from: 'body' },
    ok: { status: 204, description: 'Credited.', content: 'none' },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/admin/settings/signup',
    tag: 'Admin',
    summary: "What a new account gets: its dev allowance on the platform's keys, and whether it waits for email confirmation",
    auth: 'admin',
    ok: { status: 200, description: 'The setting in force.', schema: signupSettingsSchema },
  },
  {
    method: 'put',
    path: '/v1/admin/settings/signup',
    tag: 'Admin',
    summary: 'Change what a new account gets',
    description:
      'Merges: a field left out keeps its value, null returns it to its default (BILLING_DEV_ALLOWANCE_USD, no confirmation). Applies to accounts made from now on; an account keeps what it was promised. `require_email_confirmation` needs the email channel (SMTP_URL).',
    auth: 'admin',
    input: { schema: signupSettingsWrite, from: 'body' },
    ok: { status: 200, description: 'The setting in force after the write.', schema: signupSettingsSchema },
  },
];
