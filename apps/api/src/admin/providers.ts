// The platform admin's provider writes and live test, shared by the REST routes and
// the GraphQL door. Names and bodies are validated through the shared schemas.
import { providerNameSchema, providerWriteSchema } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { parseWith } from '../input/validate.ts';
import type { Services } from '../services.ts';
import type { ProviderView } from '../providers/custom-providers.ts';
import { probeProvider, type ProbeResult } from '../providers/probe.ts';

type Deps = Pick<Services, 'customProviders' | 'providers' | 'outbound'>;

export type ProviderTestResult = { provider: string } & ProbeResult;

/** Registers or replaces a custom provider from a wire body (snake_case, as on REST). */
export async function putProvider(s: Deps, name: string, body: unknown): Promise<ProviderView> {
  return s.customProviders.put(providerName(name), parseWith(providerWriteSchema, body));
}

export async function removeProvider(s: Deps, name: string): Promise<void> {
  await s.customProviders.remove(providerName(name));
}

function providerName(name: string): string {
  const r = providerNameSchema.safeParse(name);
  if (!r.success) throw new ApiError('validation_failed', r.error.issues[0]!.message, { param: 'name' });
  return r.data;
}

/** One live authenticated call to an enabled provider; a failure comes back in the catalogue's words. */
export async function testProvider(s: Deps, name: string): Promise<ProviderTestResult> {
  const info = s.providers.get(name);
  if (!info) throw new ApiError('not_found', `No enabled provider ${name}.`);
  return { provider: info.name, ...(await probeProvider(s.outbound, info)) };
}
