// The platform admin's catalog writes, shared by the REST routes and the GraphQL
// door: defaults, validation through the shared schema, and the checks that need
// the live registry and catalog. Every failure is an ApiError naming the field.
import { disabledWriteSchema, modelProfileSchema, type ModelProfile } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { parseWith } from '../http/validate.ts';
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
