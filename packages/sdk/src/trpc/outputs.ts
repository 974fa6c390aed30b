// The control plane's answer types, read from the router's generated types: the REST
// resources answer what the same capability answers over tRPC, so each type is written
// once, by the server.
import type { RouterOutputs } from './app-router.gen.ts';

/** What a capability answers, by its tRPC path ("savings", "workflow.steps"). */
export type Output<K extends keyof RouterOutputs> = RouterOutputs[K];

/** One element of a list answer (REST wraps the list as `{ data: [...] }`). */
export type Row<K extends keyof RouterOutputs> = RouterOutputs[K] extends Array<infer R> ? R : never;
