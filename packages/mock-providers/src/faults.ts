// Magic model names that make the mock misbehave. Only exact names are magic.
import { apiError, type ApiError } from './openai/errors.ts';
import type { StreamCut } from './http.ts';

export const MAGIC_MODELS = ['slow', 'flaky', 'error-5xx', 'rate-limited', 'reset-mid-stream', 'stall', 'error-in-stream'] as const;

export const SLOW_MS = 1500;

export type FaultPlan =
  | { kind: 'none' }
  | { kind: 'delay'; ms: number }
  | { kind: 'error'; error: ApiError }
  /** Non-stream: drop the connection without answering. */
  | { kind: 'reset' }
  /** Non-stream: never answer. */
  | { kind: 'hang' }
  /** Stream: send some chunks, then stop as described. */
  | { kind: 'cut'; cut: StreamCut };

export interface FaultState {
  flakyCalls: number;
}

const serverError = (): ApiError =>
  apiError(500, 'The server had an error while processing your request. Sorry about that!', 'server_error');

export function planFault(model: string, stream: boolean, state: FaultState): FaultPlan {
  switch (model) {
    case 'slow':
      return { kind: 'delay', ms: SLOW_MS };
    case 'flaky':
      // 1st, 3rd, 5th… flaky call fails; the retry after each failure succeeds.
      state.flakyCalls++;
      return state.flakyCalls % 2 === 1
        ? { kind: 'error', error: apiError(503, 'The server is overloaded or not ready yet.', 'server_error') }
        : { kind: 'none' };
    case 'error-5xx':
      return { kind: 'error', error: serverError() };
    case 'rate-limited':
      return {
        kind: 'error',
        error: apiError(
          429,
          `Rate limit reached for ${model} in organization org-mock on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s.`,
          'requests',
          null,
          'rate_limit_exceeded',
          { 'retry-after': '1', 'x-ratelimit-limit-requests': '3', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1s' },
        ),
      };
    case 'reset-mid-stream':
      return stream ? { kind: 'cut', cut: { afterChunks: 2, then: 'reset' } } : { kind: 'reset' };
    case 'stall':
      return stream ? { kind: 'cut', cut: { afterChunks: 1, then: 'stall' } } : { kind: 'hang' };
    case 'error-in-stream':
      return stream ? { kind: 'cut', cut: { afterChunks: 2, then: 'error' } } : { kind: 'error', error: serverError() };
    default:
      return { kind: 'none' };
  }
}
