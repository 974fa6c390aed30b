// The platform admin's catalog writes, shared by the REST routes and the GraphQL
// door: defaults, validation through the shared schema, and the checks that need
// the live registry and catalog. Every failure is an ApiError naming the field.
import { catalogAliasWriteSchema, disabledWriteSchema, modelProfileSchema, unknownModelPriceSchema, type ModelProfile, type UnknownModelPrice } from '@optimizer/schema';
import { isModelId } from '../providers/model-id.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../input/validate.ts';
import type { Services } from '../services.ts';

type Deps = Pick<Services, 'catalog' | 'providers'>;

/** What a PUT body may leave out: these fields take these values (the OpenAPI document marks them optional from this list). */
export const modelProfileDefaults = { disabled: false, failover: [], strengths: {}, search_only: false, moderation_only: false } satisfies Partial<ModelProfile>;

/** Creates or replaces one model from a wire body (snake_case, as on REST); `model` names it. */
export async function putModel(s: Deps, model: string, body: unknown): Promise<ModelProfile> {
  const given = (body ?? {}) as { model?: unknown };
  if (given.model !== undefined && given.model !== model) {
    throw new ApiError('validation_failed', 'model in the body must match the path.', { param: 'model' });
  }
  const withDefaults = { ...modelProfileDefaults, ...(body as object), model };
  const profile = parseWith(modelProfileSchema, withDefaults);
  if (!s.providers.has(profile.provider)) throw new ApiError('validation_failed', `provider ${profile.provider} is not registered.`, { param: 'provider' });
  const unknown = profile.failover.filter((m) => m !== model && !s.catalog.get(m));
  if (unknown.length) throw new ApiError('validation_failed', `failover names models not in the catalog: ${unknown.join(', ')}.`, { param: 'failover' });
  return s.catalog.put(profile);
}

export async function removeModel(s: Deps, model: string): Promise<void> {
  if (!(await s.catalog.remove(model))) throw new ApiError('not_found', `No model ${model} in the catalog.`);
}

/** Takes a model out of routing or back in; `body` is `{ disabled }`. */
export async function setModelDisabled(s: Deps, model: string, body: unknown): Promise<ModelProfile> {
  const { disabled } = parseWith(disabledWriteSchema, body);
  const updated = await s.catalog.setDisabled(model, disabled);
  if (!updated) throw new ApiError('not_found', `No model ${model} in the catalog.`);
  return updated;
}

/** Aliases: a name (a dated snapshot) priced as a catalog model; the vendor still receives the name sent. */
export async function putAlias(s: Deps, alias: string, body: unknown): Promise<{ alias: string; model: string }> {
  const { model } = parseWith(catalogAliasWriteSchema, body);
  if (!isModelId(alias)) throw new ApiError('validation_failed', 'The alias is not a valid model identifier: letters, digits and . _ - : @ +, in segments joined by /.', { param: 'alias' });
  if (s.catalog.get(alias)) throw new ApiError('conflict', `${alias} is a model in the catalog; an alias names a model the catalog does not list.`, { param: 'alias' });
  const target = s.catalog.get(model);
  if (!target) throw new ApiError('validation_failed', `No model ${model} in the catalog to alias ${alias} to.`, { param: 'model' });
  await s.catalog.putAlias(alias, target);
  return { alias, model: target.model };
}

export async function removeAlias(s: Deps, alias: string): Promise<void> {
  if (!(await s.catalog.removeAlias(alias))) throw new ApiError('not_found', `No alias ${alias}.`);
}

/** The price of models the catalog does not list on the platform's keys: the admin's, else the UNKNOWN_MODEL_PRICE setting's (null: none). */
export function unknownModelPriceView(s: Deps): { unknown_model_price: UnknownModelPrice | null } {
  return { unknown_model_price: s.catalog.unknownModelPrice() };
}

export async function putUnknownModelPrice(s: Deps, body: unknown): Promise<{ unknown_model_price: UnknownModelPrice | null }> {
  await s.catalog.setUnknownModelPrice(parseWith(unknownModelPriceSchema, body));
  return unknownModelPriceView(s);
}

/** Clears the admin's price (back to the UNKNOWN_MODEL_PRICE setting's). */
export async function clearUnknownModelPrice(s: Deps): Promise<{ unknown_model_price: UnknownModelPrice | null }> {
  await s.catalog.setUnknownModelPrice(null);
  return unknownModelPriceView(s);
}
