// The models the gateway can serve (GET /v1/models, from the catalog) and embeddings
// (POST /v1/embeddings, OpenAI's wire format).
import type { Transport } from '../transport.ts';

export interface Model {
  id: string;
  object: 'model';
  owned_by: string;
  [field: string]: unknown;
}

export interface EmbeddingCreateParams {
  model: string;
  input: string | string[];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
  [field: string]: unknown;
}

export interface EmbeddingResponse {
  object: 'list';
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
  [field: string]: unknown;
}

export class Models {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  list(): Promise<Model[]> {
    return this.#t.list<Model>({ method: 'GET', path: '/v1/models', auth: 'tenant' });
  }
}

export class Embeddings {
  readonly #t: Transport;

  constructor(t: Transport) {
    this.#t = t;
  }

  create(body: EmbeddingCreateParams): Promise<EmbeddingResponse> {
    return this.#t.json<EmbeddingResponse>({ method: 'POST', path: '/v1/embeddings', auth: 'tenant', body });
  }
}
