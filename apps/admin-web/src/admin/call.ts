// How the admin views run a GraphQL operation (AdminApp makes it; the views take it as a prop).
import type { TypedDocumentString } from '../gql/graphql.ts';

export type Call = <R, V>(doc: TypedDocumentString<R, V>, variables: V) => Promise<R>;
