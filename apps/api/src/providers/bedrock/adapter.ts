// Amazon Bedrock's Converse API behind the adapter contract: OpenAI bodies become
// Converse bodies (request.ts), signed with SigV4 (api.ts, sign.ts); answers and
// event streams come back as OpenAI completions and chunks (response.ts, stream.ts).
import type { AdapterRequest, CallTarget, ChatAdapter, ChatBody } from '../types.ts';
import { converseUrl, credentialsOrThrow, signBedrock, unsignedHeaders } from './api.ts';
import { mapBedrockError } from './errors.ts';
import { toConverse } from './request.ts';
import { parseConverseResponse } from './response.ts';
import { converseStreamDecoder } from './stream.ts';
import { ApiError } from '../../errors.ts';

export const bedrockAdapter: ChatAdapter = {
  wire: 'bedrock',
  unsupported(body: ChatBody, target: CallTarget): string | null {
    const r = toConverse(body, target.model);
    return r.ok ? null : r.refusal;
  },
  buildRequest(body: ChatBody, target: CallTarget, stream: boolean): AdapterRequest {
    credentialsOrThrow(target.provider, target.apiKey); // a key that cannot be AWS credentials is a 401 before anything is sent
    const converse = toConverse(body, target.model);
    if (!converse.ok) throw new ApiError('invalid_request', `${target.provider.name} cannot do this: ${converse.refusal}.`);
    const url = converseUrl(target.provider, target.model, stream);
    return { url, headers: unsignedHeaders(stream), body: JSON.stringify(converse.value) };
  },
  sign: signBedrock,
  parseResponse: parseConverseResponse,
  streamDecoder: converseStreamDecoder,
  mapError: mapBedrockError,
};
