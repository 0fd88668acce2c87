import { describe, expect, it } from 'vitest';
import { parseHookArgv } from '../../src/cli/hook-argv.js';

describe('parseHookArgv (macs hook without commander)', () => {
  it('reads the event, the payload and the options in either form', () => {
    expect(
      parseHookArgv(
        ['hook', 'notify', '{"a":1}', '--agent', 'w1', '--home=/h'],
        {},
      ),
    ).toEqual({
      event: 'notify',
      payload: '{"a":1}',
      opts: { agent: 'w1', home: '/h' },
    });
    expect(parseHookArgv(['hook', '--config', '/c.json', 'Stop'], {})).toEqual({
      event: 'Stop',
      opts: { config: '/c.json' },
    });
  });

  it('takes the environment as the flags do, the flag first', () => {
    const env = {
      MACS_AGENT: 'from-env',
      MACS_HOME: '/env',
      MACS_CONFIG: '/e',
    };
    expect(parseHookArgv(['hook', 'Stop', '--agent', 'w2'], env)).toEqual({
      event: 'Stop',
      opts: { agent: 'w2', home: '/env', config: '/e' },
    });
  });

  it('passes over flags it does not know (a newer settings file)', () => {
    expect(
      parseHookArgv(['hook', 'PreToolUse', '--verbose', '-q'], {}),
    ).toEqual({ event: 'PreToolUse', opts: {} });
  });

  it('leaves help, a missing event or value, and other commands to commander', () => {
    expect(parseHookArgv(['hook', '--help'], {})).toBeUndefined();
    expect(parseHookArgv(['hook', 'Stop', '-h'], {})).toBeUndefined();
    expect(parseHookArgv(['hook'], {})).toBeUndefined();
    expect(parseHookArgv(['hook', 'Stop', '--agent'], {})).toBeUndefined();
    expect(parseHookArgv(['status', 'hook'], {})).toBeUndefined();
  });
});
