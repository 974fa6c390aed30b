// The control plane's input and answer types, read from the router's generated types: the
// REST resources take and answer what the same capability does over tRPC, whose procedures
// are made from the server's capability declarations (apps/api/src/capabilities), so each
// type is written once, by the server.
import type { RouterInputs, RouterOutputs } from './app-router.gen.ts';

/** What a capability answers, by its tRPC path ("savings", "workflow.steps"). */
export type Output<K extends keyof RouterOutputs> = RouterOutputs[K];

/** One element of a list answer (REST wraps the list as `{ data: [...] }`). */
export type Row<K extends keyof RouterOutputs> = RouterOutputs[K] extends Array<infer R> ? R : never;

/** What a capability takes, by its tRPC path (REST takes the same fields as path parameters, query or body). */
export type Input<K extends keyof RouterInputs> = RouterInputs[K];
