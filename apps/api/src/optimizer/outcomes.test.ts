// How client signals become one score: hard failures score 0, soft failures (an edit, a retry) at most a half.
import { describe, expect, it } from 'vitest';
import { scoreOf, SOFT_FAILURE_SCORE } from './outcomes.ts';

describe('scoreOf', () => {
  it('lowers a retried call to a soft failure, whatever else it says short of a hard failure', () => {
    expect(scoreOf({ retried: false })).toBe(1);
    expect(scoreOf({ retried: true })).toBe(SOFT_FAILURE_SCORE);
    expect(scoreOf({ retried: true, score: 0.9 })).toBe(SOFT_FAILURE_SCORE);
    expect(scoreOf({ retried: true, score: 0.2 })).toBe(0.2);
    expect(scoreOf({ retried: true, human_verdict: 'accepted' })).toBe(SOFT_FAILURE_SCORE);
    expect(scoreOf({ retried: true, schema_valid: false })).toBe(0);
    expect(scoreOf({ retried: true, human_verdict: 'edited', score: 0.4 })).toBe(0.4);
  });

  it('keeps what it said before for the other signals', () => {
    expect(scoreOf({ score: 0.8 })).toBe(0.8);
    expect(scoreOf({ human_verdict: 'edited' })).toBe(0.5);
    expect(scoreOf({ human_verdict: 'edited', score: 0.9 })).toBe(0.5);
    expect(scoreOf({ run_completed: false, score: 1 })).toBe(0);
    expect(scoreOf({ tool_executed: true })).toBe(1);
  });
});
