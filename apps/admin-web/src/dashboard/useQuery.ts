// Loads a GraphQL document on mount and on `reload()`; tells the shell when the session is gone.
import { useCallback, useEffect, useState } from 'react';
import type { TypedDocumentString } from '../gql/graphql.ts';
import { gql, signedOut } from './client.ts';

export function useQuery<R, V>(doc: TypedDocumentString<R, V>, variables: V, onSignedOut: () => void) {
  const [data, setData] = useState<R | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = JSON.stringify(variables);
  const reload = useCallback(() => {
    gql(doc, JSON.parse(key) as V).then(
      (d) => {
        setData(d);
        setError(null);
      },
      (e: unknown) => {
        if (signedOut(e)) onSignedOut();
        else setError(e instanceof Error ? e.message : String(e));
      },
    );
  }, [doc, key, onSignedOut]);
  useEffect(reload, [reload]);
  return { data, error, reload };
}
