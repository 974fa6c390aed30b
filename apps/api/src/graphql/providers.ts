// Providers over GraphQL: the list (whether a key is set, never the key), the writes
// and the live test, through the same service functions as REST.
import { providerWriteSchema } from '@optimizer/schema';
import type { ProviderView } from '../providers/custom-providers.ts';
import { putProvider, removeProvider, testProvider, type ProviderTestResult } from '../admin/providers.ts';
import { ADMIN_FIELD, adminServices, type Builder, toWire } from './builder.ts';

export function registerProviders(builder: Builder) {
  const WireFormat = builder.enumType('WireFormat', {
    description: 'The API dialect a custom provider speaks.',
    values: providerWriteSchema.shape.wire.unwrap().options,
  });

  const Provider = builder.objectRef<ProviderView>('Provider').implement({
    description: 'A provider the gateway can route to. The key is write-only: only whether one is set is shown.',
    fields: (t) => ({
      name: t.exposeString('name'),
      baseUrl: t.exposeString('base_url'),
      wire: t.exposeString('wire', { description: 'openai, anthropic, gemini or bedrock (built-in only).' }),
      enabled: t.exposeBoolean('enabled'),
      keySet: t.exposeBoolean('key_set'),
      builtIn: t.exposeBoolean('built_in', { description: 'Configured through the environment; not writable here.' }),
    }),
  });

  const ProviderTest = builder.objectRef<ProviderTestResult>('ProviderTestResult').implement({
    fields: (t) => ({
      provider: t.exposeString('provider'),
      ok: t.exposeBoolean('ok'),
      status: t.exposeInt('status', { nullable: true, description: 'The HTTP status the vendor answered with; null when it could not be reached.' }),
      latencyMs: t.exposeFloat('latency_ms'),
      error: t.exposeString('error', { nullable: true, description: "The vendor's error, verbatim." }),
    }),
  });

  const ProviderInput = builder.inputType('ProviderInput', {
    fields: (t) => ({
      baseUrl: t.string({ required: true, description: 'With the vendor version suffix, e.g. https://host/v1.' }),
      apiKey: t.string({ description: 'Sealed at rest; left out, the stored key stays.' }),
      enabled: t.boolean(),
      wire: t.field({ type: WireFormat }),
    }),
  });

  builder.queryFields((t) => ({
    providers: t.field({
      extensions: ADMIN_FIELD,
      type: [Provider],
      description: 'Built-in providers as configured, then the custom ones.',
      resolve: (_root, _args, ctx) => {
        const services = adminServices(ctx);
        return services.customProviders.list();
      },
    }),
  }));

  builder.mutationFields((t) => ({
    putProvider: t.field({
      extensions: ADMIN_FIELD,
      type: Provider,
      description: 'Registers or replaces a custom provider; it takes effect on the next request.',
      args: { name: t.arg.string({ required: true }), input: t.arg({ type: ProviderInput, required: true }) },
      resolve: (_root, { name, input }, ctx) => {
        const services = adminServices(ctx);
        return putProvider(services, name, toWire(input));
      },
    }),
    removeProvider: t.boolean({
      extensions: ADMIN_FIELD,
      args: { name: t.arg.string({ required: true }) },
      resolve: async (_root, { name }, ctx) => {
        const services = adminServices(ctx);
        await removeProvider(services, name);
        return true;
      },
    }),
    testProvider: t.field({
      extensions: ADMIN_FIELD,
      type: ProviderTest,
      description: "One live authenticated call (listing models); the vendor's error comes back verbatim.",
      args: { name: t.arg.string({ required: true }) },
      resolve: (_root, { name }, ctx) => {
        const services = adminServices(ctx);
        return testProvider(services, name);
      },
    }),
  }));
}
