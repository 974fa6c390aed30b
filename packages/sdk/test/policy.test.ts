import { describe, expect, it } from 'vitest';
import { policyModel } from '../src/index.ts';

describe('policyModel', () => {
  it('names the model each policy kind serves', () => {
    expect(policyModel('model:claude-haiku-4-5')).toBe('claude-haiku-4-5');
    expect(policyModel('verify:gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(policyModel('gate:gpt-4o-mini+claude-haiku-4-5')).toBe('gpt-4o-mini');
    expect(policyModel('vote:a+b+c')).toBe('a');
    expect(policyModel('confirm:a<b,c')).toBe('a');
    expect(policyModel('mix:model:a@0.25|model:b')).toBe('a');
    expect(policyModel('mix:gate:a+b@0.50|model:c')).toBe('a');
  });

  it('is null before any decision', () => {
    expect(policyModel(null)).toBeNull();
    expect(policyModel(undefined)).toBeNull();
    expect(policyModel('')).toBeNull();
  });
});
