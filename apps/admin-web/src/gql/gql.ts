/* eslint-disable */
import * as types from './graphql.ts';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment ModelFields on Model {\n    model\n    provider\n    inputPerMtok\n    outputPerMtok\n    cachedInputPerMtok\n    cacheWriteMultiplier\n    inputModalities\n    outputModalities\n    tools\n    structuredOutputs\n    reasoningEfforts\n    contextLength\n    maxOutputTokens\n    searchOnly\n    moderationOnly\n    strengths {\n      capability\n      score\n    }\n    disabled\n    failover\n  }\n": typeof types.ModelFieldsFragmentDoc,
    "\n  fragment ProviderFields on Provider {\n    name\n    baseUrl\n    wire\n    enabled\n    keySet\n    builtIn\n  }\n": typeof types.ProviderFieldsFragmentDoc,
    "\n  query Catalog {\n    catalog {\n      ...ModelFields\n    }\n  }\n": typeof types.CatalogDocument,
    "\n  query Providers {\n    providers {\n      ...ProviderFields\n    }\n  }\n": typeof types.ProvidersDocument,
    "\n  mutation PutModel($input: ModelInput!) {\n    putModel(input: $input) {\n      ...ModelFields\n    }\n  }\n": typeof types.PutModelDocument,
    "\n  mutation SetModelDisabled($model: String!, $disabled: Boolean!) {\n    setModelDisabled(model: $model, disabled: $disabled) {\n      ...ModelFields\n    }\n  }\n": typeof types.SetModelDisabledDocument,
    "\n  mutation RemoveModel($model: String!) {\n    removeModel(model: $model)\n  }\n": typeof types.RemoveModelDocument,
    "\n  mutation PutProvider($name: String!, $input: ProviderInput!) {\n    putProvider(name: $name, input: $input) {\n      ...ProviderFields\n    }\n  }\n": typeof types.PutProviderDocument,
    "\n  mutation RemoveProvider($name: String!) {\n    removeProvider(name: $name)\n  }\n": typeof types.RemoveProviderDocument,
    "\n  mutation TestProvider($name: String!) {\n    testProvider(name: $name) {\n      provider\n      ok\n      status\n      latencyMs\n      error\n    }\n  }\n": typeof types.TestProviderDocument,
};
const documents: Documents = {
    "\n  fragment ModelFields on Model {\n    model\n    provider\n    inputPerMtok\n    outputPerMtok\n    cachedInputPerMtok\n    cacheWriteMultiplier\n    inputModalities\n    outputModalities\n    tools\n    structuredOutputs\n    reasoningEfforts\n    contextLength\n    maxOutputTokens\n    searchOnly\n    moderationOnly\n    strengths {\n      capability\n      score\n    }\n    disabled\n    failover\n  }\n": types.ModelFieldsFragmentDoc,
    "\n  fragment ProviderFields on Provider {\n    name\n    baseUrl\n    wire\n    enabled\n    keySet\n    builtIn\n  }\n": types.ProviderFieldsFragmentDoc,
    "\n  query Catalog {\n    catalog {\n      ...ModelFields\n    }\n  }\n": types.CatalogDocument,
    "\n  query Providers {\n    providers {\n      ...ProviderFields\n    }\n  }\n": types.ProvidersDocument,
    "\n  mutation PutModel($input: ModelInput!) {\n    putModel(input: $input) {\n      ...ModelFields\n    }\n  }\n": types.PutModelDocument,
    "\n  mutation SetModelDisabled($model: String!, $disabled: Boolean!) {\n    setModelDisabled(model: $model, disabled: $disabled) {\n      ...ModelFields\n    }\n  }\n": types.SetModelDisabledDocument,
    "\n  mutation RemoveModel($model: String!) {\n    removeModel(model: $model)\n  }\n": types.RemoveModelDocument,
    "\n  mutation PutProvider($name: String!, $input: ProviderInput!) {\n    putProvider(name: $name, input: $input) {\n      ...ProviderFields\n    }\n  }\n": types.PutProviderDocument,
    "\n  mutation RemoveProvider($name: String!) {\n    removeProvider(name: $name)\n  }\n": types.RemoveProviderDocument,
    "\n  mutation TestProvider($name: String!) {\n    testProvider(name: $name) {\n      provider\n      ok\n      status\n      latencyMs\n      error\n    }\n  }\n": types.TestProviderDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ModelFields on Model {\n    model\n    provider\n    inputPerMtok\n    outputPerMtok\n    cachedInputPerMtok\n    cacheWriteMultiplier\n    inputModalities\n    outputModalities\n    tools\n    structuredOutputs\n    reasoningEfforts\n    contextLength\n    maxOutputTokens\n    searchOnly\n    moderationOnly\n    strengths {\n      capability\n      score\n    }\n    disabled\n    failover\n  }\n"): typeof import('./graphql.ts').ModelFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ProviderFields on Provider {\n    name\n    baseUrl\n    wire\n    enabled\n    keySet\n    builtIn\n  }\n"): typeof import('./graphql.ts').ProviderFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Catalog {\n    catalog {\n      ...ModelFields\n    }\n  }\n"): typeof import('./graphql.ts').CatalogDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Providers {\n    providers {\n      ...ProviderFields\n    }\n  }\n"): typeof import('./graphql.ts').ProvidersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PutModel($input: ModelInput!) {\n    putModel(input: $input) {\n      ...ModelFields\n    }\n  }\n"): typeof import('./graphql.ts').PutModelDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetModelDisabled($model: String!, $disabled: Boolean!) {\n    setModelDisabled(model: $model, disabled: $disabled) {\n      ...ModelFields\n    }\n  }\n"): typeof import('./graphql.ts').SetModelDisabledDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RemoveModel($model: String!) {\n    removeModel(model: $model)\n  }\n"): typeof import('./graphql.ts').RemoveModelDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PutProvider($name: String!, $input: ProviderInput!) {\n    putProvider(name: $name, input: $input) {\n      ...ProviderFields\n    }\n  }\n"): typeof import('./graphql.ts').PutProviderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RemoveProvider($name: String!) {\n    removeProvider(name: $name)\n  }\n"): typeof import('./graphql.ts').RemoveProviderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TestProvider($name: String!) {\n    testProvider(name: $name) {\n      provider\n      ok\n      status\n      latencyMs\n      error\n    }\n  }\n"): typeof import('./graphql.ts').TestProviderDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
