import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildRemoteCommand,
  buildSshArgs,
  quoteShellWord,
} from '../../src/remote/ssh-args.js';

describe('quoteShellWord', () => {
  it.each([
    ['macs', 'macs'],
    ['/srv/proj', '/srv/proj'],
    ['a b', `'a b'`],
    [`it's`, `'it'\\''s'`],
    ['$(touch x)', `'$(touch x)'`],
    ['a;b', `'a;b'`],
    ['', `''`],
    ['line\nbreak', `'line\nbreak'`],
  ])('%j -> %s', (word, quoted) => {
    expect(quoteShellWord(word)).toBe(quoted);
  });

  it('refuses a NUL byte', () => {
    expect(() => quoteShellWord('a\0b')).toThrow(/NUL/);
  });

  it('a POSIX shell reads back every word exactly (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc
            .string({ unit: 'binary', maxLength: 40 })
            .filter((s) => !s.includes('\0')),
          { minLength: 1, maxLength: 4 },
        ),
        (words) => {
          const out = execFileSync(
            'sh',
            [
              '-c',
              `for w in ${buildRemoteCommand(words)}; do printf '%s\\0' "$w"; done`,
            ],
            { encoding: 'utf8' },
          );
          expect(out.split('\0').slice(0, -1)).toEqual(words);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('buildSshArgs', () => {
  it('batch mode, bounded, the destination after --, the command quoted', () => {
    expect(
      buildSshArgs({
        destination: 'dev@gpu1',
        remote: ['macs', 'mcp', '--home', '/srv/my proj'],
        configFile: '/tmp/cfg',
      }),
    ).toEqual([
      '-F',
      '/tmp/cfg',
      '-T',
      '-o',
      'BatchMode=yes',
      '-o',
      'ConnectTimeout=5',
      '-o',
      'ServerAliveInterval=3',
      '-o',
      'ServerAliveCountMax=2',
      '--',
      'dev@gpu1',
      `macs mcp --home '/srv/my proj'`,
    ]);
  });

  it('a retry never shares a connection', () => {
    const args = buildSshArgs({
      destination: 'gpu1',
      remote: ['true'],
      fresh: true,
    });
    expect(args).toContain('ControlPath=none');
    expect(args.join(' ')).not.toMatch(/StrictHostKeyChecking/);
  });

  it.each(['-oProxyCommand=x', 'a b', '', 'host;x'])(
    'refuses the destination %j',
    (destination) => {
      expect(() => buildSshArgs({ destination, remote: ['true'] })).toThrow();
    },
  );
});
