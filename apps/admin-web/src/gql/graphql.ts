/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type Capability =
  | 'chat'
  | 'classification'
  | 'code'
  | 'extraction'
  | 'long_context'
  | 'math'
  | 'reasoning'
  | 'tool_use'
  | 'vision';

export type Modality =
  | 'audio'
  | 'embedding'
  | 'image'
  | 'text'
  | 'video';

/** A full model profile. Left-out optional fields take the same defaults as on REST. */
export type ModelInput = {
  cacheWriteMultiplier: number;
  cachedInputPerMtok: number;
  contextLength: number;
  disabled?: boolean | null | undefined;
  failover?: Array<string> | null | undefined;
  inputModalities: Array<Modality>;
  inputPerMtok: number;
  maxOutputTokens: number;
  model: string;
  moderationOnly?: boolean | null | undefined;
  outputModalities: Array<Modality>;
  outputPerMtok: number;
  provider: string;
  reasoningEfforts: Array<ReasoningEffort>;
  searchOnly?: boolean | null | undefined;
  strengths?: Array<StrengthInput> | null | undefined;
  structuredOutputs: boolean;
  tools: ToolSupport;
};

export type ProviderInput = {
  /** Sealed at rest; left out, the stored key stays. */
  apiKey?: string | null | undefined;
  /** With the vendor version suffix, e.g. https://host/v1. */
  baseUrl: string;
  enabled?: boolean | null | undefined;
  wire?: WireFormat | null | undefined;
};

export type ReasoningEffort =
  | 'high'
  | 'low'
  | 'max'
  | 'medium'
  | 'minimal'
  | 'none';

export type StrengthInput = {
  capability: Capability;
  score: number;
};

export type ToolSupport =
  | 'basic'
  | 'full'
  | 'none';

/** The API dialect a custom provider speaks. */
export type WireFormat =
  | 'anthropic'
  | 'gemini'
  | 'openai';

export type ModelFieldsFragment = { model: string, provider: string, inputPerMtok: number, outputPerMtok: number, cachedInputPerMtok: number, cacheWriteMultiplier: number, inputModalities: Array<Modality>, outputModalities: Array<Modality>, tools: ToolSupport, structuredOutputs: boolean, reasoningEfforts: Array<ReasoningEffort>, contextLength: number, maxOutputTokens: number, searchOnly: boolean, moderationOnly: boolean, disabled: boolean, failover: Array<string>, strengths: Array<{ capability: Capability, score: number }> };

export type ProviderFieldsFragment = { name: string, baseUrl: string, wire: string, enabled: boolean, keySet: boolean, builtIn: boolean };

export type CatalogQueryVariables = Exact<{ [key: string]: never; }>;


export type CatalogQuery = { catalog: Array<{ model: string, provider: string, inputPerMtok: number, outputPerMtok: number, cachedInputPerMtok: number, cacheWriteMultiplier: number, inputModalities: Array<Modality>, outputModalities: Array<Modality>, tools: ToolSupport, structuredOutputs: boolean, reasoningEfforts: Array<ReasoningEffort>, contextLength: number, maxOutputTokens: number, searchOnly: boolean, moderationOnly: boolean, disabled: boolean, failover: Array<string>, strengths: Array<{ capability: Capability, score: number }> }> };

export type ProvidersQueryVariables = Exact<{ [key: string]: never; }>;


export type ProvidersQuery = { providers: Array<{ name: string, baseUrl: string, wire: string, enabled: boolean, keySet: boolean, builtIn: boolean }> };

export type PutModelMutationVariables = Exact<{
  input: ModelInput;
}>;


export type PutModelMutation = { putModel: { model: string, provider: string, inputPerMtok: number, outputPerMtok: number, cachedInputPerMtok: number, cacheWriteMultiplier: number, inputModalities: Array<Modality>, outputModalities: Array<Modality>, tools: ToolSupport, structuredOutputs: boolean, reasoningEfforts: Array<ReasoningEffort>, contextLength: number, maxOutputTokens: number, searchOnly: boolean, moderationOnly: boolean, disabled: boolean, failover: Array<string>, strengths: Array<{ capability: Capability, score: number }> } };

export type SetModelDisabledMutationVariables = Exact<{
  model: string;
  disabled: boolean;
}>;


export type SetModelDisabledMutation = { setModelDisabled: { model: string, provider: string, inputPerMtok: number, outputPerMtok: number, cachedInputPerMtok: number, cacheWriteMultiplier: number, inputModalities: Array<Modality>, outputModalities: Array<Modality>, tools: ToolSupport, structuredOutputs: boolean, reasoningEfforts: Array<ReasoningEffort>, contextLength: number, maxOutputTokens: number, searchOnly: boolean, moderationOnly: boolean, disabled: boolean, failover: Array<string>, strengths: Array<{ capability: Capability, score: number }> } };

export type RemoveModelMutationVariables = Exact<{
  model: string;
}>;


export type RemoveModelMutation = { removeModel: boolean };

export type PutProviderMutationVariables = Exact<{
  name: string;
  input: ProviderInput;
}>;


export type PutProviderMutation = { putProvider: { name: string, baseUrl: string, wire: string, enabled: boolean, keySet: boolean, builtIn: boolean } };

export type RemoveProviderMutationVariables = Exact<{
  name: string;
}>;


export type RemoveProviderMutation = { removeProvider: boolean };

export type TestProviderMutationVariables = Exact<{
  name: string;
}>;


export type TestProviderMutation = { testProvider: { provider: string, ok: boolean, status: number | null, latencyMs: number, error: string | null } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const ModelFieldsFragmentDoc = new TypedDocumentString(`
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
}
    `, {"fragmentName":"ModelFields"}) as unknown as TypedDocumentString<ModelFieldsFragment, unknown>;
export const ProviderFieldsFragmentDoc = new TypedDocumentString(`
    fragment ProviderFields on Provider {
  name
  baseUrl
  wire
  enabled
  keySet
  builtIn
}
    `, {"fragmentName":"ProviderFields"}) as unknown as TypedDocumentString<ProviderFieldsFragment, unknown>;
export const CatalogDocument = new TypedDocumentString(`
    query Catalog {
  catalog {
    ...ModelFields
  }
}
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
}`) as unknown as TypedDocumentString<CatalogQuery, CatalogQueryVariables>;
export const ProvidersDocument = new TypedDocumentString(`
    query Providers {
  providers {
    ...ProviderFields
  }
}
    fragment ProviderFields on Provider {
  name
  baseUrl
  wire
  enabled
  keySet
  builtIn
}`) as unknown as TypedDocumentString<ProvidersQuery, ProvidersQueryVariables>;
export const PutModelDocument = new TypedDocumentString(`
    mutation PutModel($input: ModelInput!) {
  putModel(input: $input) {
    ...ModelFields
  }
}
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
}`) as unknown as TypedDocumentString<PutModelMutation, PutModelMutationVariables>;
export const SetModelDisabledDocument = new TypedDocumentString(`
    mutation SetModelDisabled($model: String!, $disabled: Boolean!) {
  setModelDisabled(model: $model, disabled: $disabled) {
    ...ModelFields
  }
}
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
}`) as unknown as TypedDocumentString<SetModelDisabledMutation, SetModelDisabledMutationVariables>;
export const RemoveModelDocument = new TypedDocumentString(`
    mutation RemoveModel($model: String!) {
  removeModel(model: $model)
}
    `) as unknown as TypedDocumentString<RemoveModelMutation, RemoveModelMutationVariables>;
export const PutProviderDocument = new TypedDocumentString(`
    mutation PutProvider($name: String!, $input: ProviderInput!) {
  putProvider(name: $name, input: $input) {
    ...ProviderFields
  }
}
    fragment ProviderFields on Provider {
  name
  baseUrl
  wire
  enabled
  keySet
  builtIn
}`) as unknown as TypedDocumentString<PutProviderMutation, PutProviderMutationVariables>;
export const RemoveProviderDocument = new TypedDocumentString(`
    mutation RemoveProvider($name: String!) {
  removeProvider(name: $name)
}
    `) as unknown as TypedDocumentString<RemoveProviderMutation, RemoveProviderMutationVariables>;
export const TestProviderDocument = new TypedDocumentString(`
    mutation TestProvider($name: String!) {
  testProvider(name: $name) {
    provider
    ok
    status
    latencyMs
    error
  }
}
    `) as unknown as TypedDocumentString<TestProviderMutation, TestProviderMutationVariables>;