// A tiny GraphQL client over fetch for the codegen'd typed documents. The admin key
// rides as a bearer on every request; errors keep the server's code and field.
import type { TypedDocumentString } from '../gql/graphql.ts';

export class GqlError extends Error {
  override name = 'GqlError';
  /** extensions.code, e.g. BAD_USER_INPUT, UNAUTHENTICATED, NOT_FOUND; NETWORK when no GraphQL answer came. */
  readonly code: string;
  /** The input field the server named (GraphQL name, e.g. inputPerMtok), if any. */
  readonly field: string | null;

  constructor(message: string, code: string, field: string | null = null) {
    super(message);
    this.code = code;
    this.field = field;
  }
}

interface GqlBody<R> {
  data?: R | null;
  errors?: { message: string; extensions?: { code?: string; field?: string } }[];
}

export async function gqlRequest<R, V>(doc: TypedDocumentString<R, V>, variables: V, adminKey: string): Promise<R> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', authorization: `Bearer ${adminKey}` },
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
  if (first) throw new GqlError(first.message, first.extensions?.code ?? 'ERROR', first.extensions?.field ?? null);
  if (!body.data) throw new GqlError(`The gateway answered HTTP ${res.status} with no data.`, 'NETWORK');
  return body.data;
}
