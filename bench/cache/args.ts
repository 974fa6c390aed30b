// Command-line options of `node bench/cache/run.ts` (npm run bench:cache -- …).
import { join } from 'node:path';
import { readFlags, UsageError } from '../flags.ts';

export interface Options {
  pairs: string;
  llm: string | undefined;
  /** First pair used (0-based), to report on a held-out split. */
  offset: number;
  limit: number | undefined;
  llmLimit: number | undefined;
  /** undefined = the embedder's default (DEFAULT_THRESHOLDS). */
  threshold: number | undefined;
  embedder: 'onnx' | 'lexical';
  modelDir: string;
  batch: number;
  /** Queries timed one by one (each for hits and for misses). */
  timing: number;
  falseHits: number;
  /** Where to write the indices of the pairs near or above the threshold (the precision test's fixture). */
  nearPairs: string | undefined;
  out: string | undefined;
  /** Pairs (from the selected ones) asked through a real gateway; 0 skips the gateway. */
  gatewayLimit: number;
  /** LLM paraphrase pairs asked through the gateway. */
  gatewayLlmLimit: number;
  /** Requests timed for the exact cache against the gateway's floor. */
  exactRequests: number;
  /** Verified mode: the tenant's error bound (share of served hits wrong); undefined = off. */
  verifyBound: number | undefined;
  /** Verified mode: share of servable would-be hits still verified. */
  verifySample: number;
}

/** Pairs below this similarity can never be hits at the default threshold (0.94) or any a request may set. */
export const NEAR_PAIRS_FLOOR = 0.925;

export const USAGE = `usage: node bench/cache/run.ts [options]   (or: npm run bench:cache -- [options])
  --pairs FILE        JSONL of {a, b, duplicate} (default ../shared/data/paraphrase/qqp_dev.jsonl from the repo root)
  --llm FILE          JSON [{origin, similar}] paraphrases, all positives, for recall
                      (default ../shared/data/paraphrase/llm_paraphrases.json; "none" to skip)
  --offset N          skip the first N pairs (default 0): --limit 8000 is the tuning split, --offset 8000 the rest
  --limit N           use N pairs (default: all)
  --llm-limit N       use N paraphrase pairs (default: all)
  --threshold T       similarity threshold (default: the embedder's tuned default)
  --embedder NAME     onnx (all-MiniLM-L6-v2 on onnxruntime, default) or lexical (the fallback)
  --model-dir DIR     model directory for onnx (default ../shared/models/all-MiniLM-L6-v2 from the repo root)
  --batch N           texts per embedding request (default 32)
  --timing N          queries timed one at a time for the hit and the miss path (default 200 each)
  --false-hits N      false hits printed at the end (default 20)
  --near-pairs FILE   write the indices of the pairs with similarity ≥ ${NEAR_PAIRS_FLOOR} (every pair from --offset
                      on: no --limit), the fixture of apps/api/test/semantic-precision.test.ts (--offset 8000)
  --out FILE          also write the full result as JSON here
  --gateway-limit N   pairs also asked through a real gateway (a, then b; default 1000; 0 skips the gateway)
  --gateway-llm-limit N  LLM paraphrase pairs asked through the gateway (default 300)
  --exact-requests N  requests timed for the exact-cache hit path against the gateway's floor (default 300)
  --verify-bound B    also run the verified mode at error bound B (e.g. 0.01): per-neighbourhood thresholds learned
                      from verification, against the default; prints verification cost and its false hits
  --verify-sample R   share of servable would-be hits still verified in that mode (default 0.05)`;

export { UsageError };

export function parseArgs(argv: string[], repoRoot: string): Options {
  const known = ['pairs', 'llm', 'offset', 'limit', 'llm-limit', 'threshold', 'embedder', 'model-dir', 'batch', 'timing', 'false-hits', 'near-pairs', 'out', 'gateway-limit', 'gateway-llm-limit', 'exact-requests', 'verify-bound', 'verify-sample'];
  const { flags } = readFlags(argv, USAGE, { known });
  const int = (key: string, min: number): number | undefined => {
    const v = flags.get(key);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${key} must be an integer ≥ ${min}`);
    return n;
  };
  const threshold = flags.get('threshold');
  const t = threshold === undefined ? undefined : Number(threshold);
  if (t !== undefined && (!Number.isFinite(t) || t < -1 || t > 1)) throw new UsageError('--threshold must be a number in [-1, 1]');
  const embedder = flags.get('embedder') ?? 'onnx';
  if (embedder !== 'onnx' && embedder !== 'lexical') throw new UsageError('--embedder must be onnx or lexical');
  const unitFlag = (key: string): number | undefined => {
    const v = flags.get(key);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || n >= 1) throw new UsageError(`--${key} must be a number in [0, 1)`);
    return n;
  };
  const llm = flags.get('llm');
  if (flags.has('near-pairs') && (flags.has('limit') || embedder !== 'onnx')) throw new UsageError('--near-pairs needs every pair from --offset on (no --limit) and the onnx embedder');
  return {
    pairs: flags.get('pairs') ?? join(repoRoot, '..', 'shared', 'data', 'paraphrase', 'qqp_dev.jsonl'),
    llm: llm === 'none' ? undefined : (llm ?? join(repoRoot, '..', 'shared', 'data', 'paraphrase', 'llm_paraphrases.json')),
    offset: int('offset', 0) ?? 0,
    limit: int('limit', 1),
    llmLimit: int('llm-limit', 0),
    threshold: t,
    embedder,
    modelDir: flags.get('model-dir') ?? join(repoRoot, '..', 'shared', 'models', 'all-MiniLM-L6-v2'),
    batch: int('batch', 1) ?? 32,
    timing: int('timing', 0) ?? 200,
    falseHits: int('false-hits', 0) ?? 20,
    nearPairs: flags.get('near-pairs'),
    out: flags.get('out'),
    gatewayLimit: int('gateway-limit', 0) ?? 1000,
    gatewayLlmLimit: int('gateway-llm-limit', 0) ?? 300,
    exactRequests: int('exact-requests', 1) ?? 300,
    verifyBound: unitFlag('verify-bound'),
    verifySample: unitFlag('verify-sample') ?? 0.05,
  };
}
