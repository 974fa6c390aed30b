// Every GraphQL operation of the admin screens. `pnpm codegen` turns these into typed
// documents in ../gql (committed).
import { graphql } from '../gql/index.ts';

export const modelFields = graphql(`
  fragment ModelFields on Model {
    model
    provider
    inputPerMtok
    outputPerMtok
    cachedInputPerMtok
    cacheWriteMultiplier
    inputModalities
    outputModalities
    tools
    structuredOutputs
    reasoningEfforts
    contextLength
    maxOutputTokens
    searchOnly
    moderationOnly
    strengths {
      capability
      score
    }
    disabled
    failover
    weights
  }
`);

export const providerFields = graphql(`
  fragment ProviderFields on Provider {
    name
    baseUrl
    wire
    enabled
    keySet
    builtIn
  }
`);

export const catalogQuery = graphql(`
  query Catalog {
    catalog {
      ...ModelFields
    }
  }
`);

export const providersQuery = graphql(`
  query Providers {
    providers {
      ...ProviderFields
    }
  }
`);

export const putModelMutation = graphql(`
  mutation PutModel($input: ModelInput!) {
    putModel(input: $input) {
      ...ModelFields
    }
  }
`);

export const setModelDisabledMutation = graphql(`
  mutation SetModelDisabled($model: String!, $disabled: Boolean!) {
    setModelDisabled(model: $model, disabled: $disabled) {
      ...ModelFields
    }
  }
`);

export const removeModelMutation = graphql(`
  mutation RemoveModel($model: String!) {
    removeModel(model: $model)
  }
`);

export const putProviderMutation = graphql(`
  mutation PutProvider($name: String!, $input: ProviderInput!) {
    putProvider(name: $name, input: $input) {
      ...ProviderFields
    }
  }
`);

export const removeProviderMutation = graphql(`
  mutation RemoveProvider($name: String!) {
    removeProvider(name: $name)
  }
`);

export const testProviderMutation = graphql(`
  mutation TestProvider($name: String!) {
    testProvider(name: $name) {
      provider
      ok
      status
      latencyMs
      error
    }
  }
`);
