// A capability's REST door as the SDK calls it (routes.gen.ts lists one per capability).
import type { Method } from '../transport.ts';

export interface RestRoute {
  method: Method;
  /** As the server registers it: `:name` segments are fields of the input. */
  path: string;
  /** Where the input's other fields go: the query string, the JSON body, or nowhere (all are path fields); null: no input. */
  from: 'query' | 'body' | 'params' | null;
  /** The answer is `{ data: [...] }`, unwrapped to the list. */
  list: boolean;
  /** The answer is 204, no body. */
  empty: boolean;
  auth: 'tenant' | 'none';
}
