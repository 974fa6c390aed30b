// @optimizer/sdk/trpc: the tenant control plane through the gateway's tRPC door, typed by
// the server's router.
export { createTrpcClient, TRPC_PATH, type OptimizerTrpcClient, type OptimizerTrpcOptions } from './client.ts';
export type { AppRouter, RouterInputs, RouterOutputs, TrpcErrorShape } from './app-router.gen.ts';
