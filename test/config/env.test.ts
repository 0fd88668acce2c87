import { describe, expect, it } from 'vitest';
import { CONFIG_ENV, envOverrides } from '../../src/config/env.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { ConfigError } from '../../src/errors.js';

describe('envOverrides', () => {
  it('reads integers, booleans and strings by their config keys', () => {
    expect(
      envOverrides({
        MACS_DEDUP_WINDOW_SEC: '20',
        MACS_HEURISTICS: 'yes',
        MACS_NO_SPLIT: '0',
        MACS_BACKEND: 'exec',
      }),
    ).toEqual({
      dedupWindowSec: 20,
      heuristics: true,
      noSplit: false,
      backend: 'exec',
    });
  });

  it('ignores unset and empty variables, and those it does not know', () => {
    expect(
      envOverrides({ MACS_BACKEND: '', MACS_AGENT: 'w1', HOME: '/x' }),
    ).toEqual({});
  });

  it('refuses an integer that is not one, naming the variable', () => {
    expect(() => envOverrides({ MACS_SUBMIT_RETRIES: 'lots' })).toThrow(
      ConfigError,
    );
    expect(() => envOverrides({ MACS_SUBMIT_RETRIES: '1.5' })).toThrow(
      "environment MACS_SUBMIT_RETRIES: expected an integer, received '1.5'",
    );
  });

  it('names only MACS_* variables, each for a key of the config', () => {
    const keys = Object.keys(ConfigSchema.parse({}));
    for (const [name, { key }] of Object.entries(CONFIG_ENV)) {
      expect(name).toMatch(/^MACS_[A-Z_]+$/);
      expect(keys).toContain(key);
    }
  });
});
