import { describe, expect, it } from 'vitest';
import { PolicySchema } from '../../src/config/policy.js';
import {
  DEFAULT_ASK_DEFAULT,
  DEFAULT_ASK_TIMEOUT_SEC,
  DEFAULT_DENY_RULES,
  defaultPolicy,
} from '../../src/config/policy-defaults.js';

describe('defaultPolicy (no zod)', () => {
  it('is what the schema makes of an empty policy', () => {
    expect(defaultPolicy()).toEqual(PolicySchema.parse({}));
  });

  it('holds the default deny rules, nothing to ask or allow, 120 s, deny', () => {
    expect(defaultPolicy()).toEqual({
      deny: DEFAULT_DENY_RULES,
      ask: [],
      allow: [],
      askTimeoutSec: 120,
      askDefault: 'deny',
    });
    expect(DEFAULT_ASK_TIMEOUT_SEC).toBe(120);
    expect(DEFAULT_ASK_DEFAULT).toBe('deny');
  });

  it('gives each caller its own lists', () => {
    const first = defaultPolicy();
    first.deny.pop();
    first.ask.push({ name: 'x', pattern: 'x', ignoreCase: false });
    expect(defaultPolicy().deny).toHaveLength(DEFAULT_DENY_RULES.length);
    expect(defaultPolicy().ask).toEqual([]);
  });
});
