// Azure OpenAI through the gateway, against the OpenAI mock in Azure's dialect: the
// deployment in the path names the model, the api-version is a query parameter, the key
// goes in `api-key`, and a stream opens with a prompt_filter_results-only chunk.
import { startOpenAIMock } from '@optimizer/mock-providers';
import type { ProviderConformance } from '../descriptor.ts';
import { inspectOpenAI } from './openai.ts';

const API_VERSION = '2024-10-21';

export const conformance: ProviderConformance = {
  provider: 'azure-openai',
  model: 'azure-openai/gpt-4o-mini',
  startMock: (apiKey, opts) => startOpenAIMock({ apiKey, dialect: 'azure', ...opts }),
  env: (url, key) => ({ AZURE_OPENAI_BASE_URL: url, AZURE_OPENAI_API_KEY: key, AZURE_OPENAI_API_VERSION: API_VERSION }),
  faultModel: (f) => `azure-openai/${f}`,
  inspect(req) {
    const deployment = /\/deployments\/([^/]+)\//.exec(req.path)?.[1];
    return { ...inspectOpenAI(req), model: deployment ? decodeURIComponent(deployment) : req.body.model };
  },
};
