// GraphQL codegen (client preset): typed documents for the admin web app, from the
// SDL the API prints (packages/schema/schema.graphql) and the operations the web app
// writes with graphql(`...`). `pnpm codegen` prints the SDL, then generates; the output
// in apps/admin-web/src/gql is committed so a build needs no codegen run, and
// apps/api/test/graphql.test.ts fails when either is stale.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'packages/schema/schema.graphql',
  documents: ['apps/admin-web/src/**/*.{ts,tsx}', '!apps/admin-web/src/gql/**'],
  ignoreNoDocuments: false,
  generates: {
    'apps/admin-web/src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        // plain strings for a fetch client (no graphql runtime in the bundle)
        documentMode: 'string',
        // string unions instead of TS enums (the web app compiles with erasableSyntaxOnly)
        enumsAsTypes: true,
        useTypeImports: true,
        avoidOptionals: { field: true, inputValue: false, object: true, defaultValue: false },
        skipTypename: true,
        // the web app resolves like Node (NodeNext): relative imports name the file
        importExtension: '.ts',
      },
    },
  },
};

export default config;
