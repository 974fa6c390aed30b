// A tiny GraphQL client over fetch for the codegen'd typed documents, shared by the admin
// console (the admin key as a bearer) and the tenant dashboard (its session cookie, which
// the browser sends on its own). Errors keep the server's code, catalogue code and field.
import type { TypedDocumentString } from './gql/graphql.ts';

export class GqlError extends Error {
  override name = 'GqlError';
  /** extensions.code, e.g. BAD_USER_INPUT, UNAUTHENTICATED, NOT_FOUND; NETWORK when no GraphQL answer came. */
  readonly code: string;
  /** The input field the server named (GraphQL name, e.g. inputPerMtok), if any. */
  readonly field: string | null;
  /** Our catalogue's code (extensions.apiCode, e.g. missing_api_key), when the server gave one. */
  readonly apiCode: string | null;

  constructor(message: string, code: string, field: string | null = null, apiCode: string | null = null) {
    super(message);
    this.code = code;
    this.field = field;
    this.apiCode = apiCode;
  }
}

interface GqlBody<R> {
  data?: R | null;
  errors?: { message: string; extensions?: { code?: string; apiCode?: string; field?: string } }[];
}

/** Runs one document; `adminKey` rides as a bearer when given, else the session cookie speaks. */
export async function gqlRequest<R, V>(doc: TypedDocumentString<R, V>, variables: V, adminKey?: string): Promise<R> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(adminKey ? { authorization: `Bearer ${adminKey}` } : {}),
      },
      body: JSON.stringify({ query: doc.toString(), variables }),
    });
  } catch {
    throw new GqlError('Could not reach the gateway. Is it running?', 'NETWORK');
  }
  let body: GqlBody<R>;
  try {
    body = (await res.json()) as GqlBody<R>;
  } catch {
    throw new GqlError(`The gateway answered HTTP ${res.status} without a GraphQL result.`, 'NETWORK');
  }
  const first = body.errors?.[0];
  if (first) throw new GqlError(first.message, first.extensions?.code ?? 'ERROR', first.extensions?.field ?? null, first.extensions?.apiCode ?? null);
  if (!body.data) throw new GqlError(`The gateway answered HTTP ${res.status} with no data.`, 'NETWORK');
  return body.data;
}
