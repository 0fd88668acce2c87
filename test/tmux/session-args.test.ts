import { describe, expect, it } from 'vitest';
import {
  buildAttachArgs,
  buildHasSessionArgs,
  buildNewSessionArgs,
  buildNewWindowArgs,
  buildRespawnPaneArgs,
  buildSplitWindowArgs,
  parsePaneExit,
  parseTmuxVersion,
} from '../../src/tmux/session-args.js';

describe('session argv builders', () => {
  it('create panes that print their id, with the command as separate arguments', () => {
    expect(
      buildNewSessionArgs({
        session: 'macs',
        window: 'agents',
        width: 200,
        height: 50,
        cwd: '/h',
        command: ['sleep', '1'],
      }),
    ).toEqual([
      'new-session',
      '-d',
      '-s',
      'macs',
      '-n',
      'agents',
      '-x',
      '200',
      '-y',
      '50',
      '-c',
      '/h',
      '-P',
      '-F',
      '#{pane_id}',
      'sleep',
      '1',
    ]);
    expect(
      buildNewWindowArgs({
        session: 'macs',
        window: 'bridge',
        cwd: '/h',
        command: ['a', 'b'],
      }),
    ).toEqual([
      'new-window',
      '-d',
      '-t',
      '=macs:',
      '-n',
      'bridge',
      '-c',
      '/h',
      '-P',
      '-F',
      '#{pane_id}',
      'a',
      'b',
    ]);
    expect(
      buildSplitWindowArgs({ pane: '%0', cwd: '/h', command: ['a', 'b'] }),
    ).toEqual([
      'split-window',
      '-d',
      '-t',
      '%0',
      '-c',
      '/h',
      '-P',
      '-F',
      '#{pane_id}',
      'a',
      'b',
    ]);
  });

  it('respawn a pane with its environment; a value is never split or interpreted', () => {
    expect(
      buildRespawnPaneArgs({
        pane: '%3',
        cwd: '/w',
        env: { MACS_AGENT: 'w-1', X: 'a b;$(c)' },
        command: ['sh', '-c', 'x', 'y'],
      }),
    ).toEqual([
      'respawn-pane',
      '-k',
      '-t',
      '%3',
      '-c',
      '/w',
      '-e',
      'MACS_AGENT=w-1',
      '-e',
      'X=a b;$(c)',
      'sh',
      '-c',
      'x',
      'y',
    ]);
  });

  it('target the session by its exact name', () => {
    expect(buildHasSessionArgs('macs')).toEqual(['has-session', '-t', '=macs']);
    expect(buildAttachArgs('macs')).toEqual(['attach-session', '-t', '=macs']);
  });

  it.each([
    ['127\u001f\n', { exitCode: 127 }],
    ['\u001f9\n', { exitSignal: 9 }],
    ['\u001f', {}],
    ['', {}],
  ])('parses how a pane ended: %j', (out, expected) => {
    expect(parsePaneExit(out)).toEqual(expected);
  });

  it.each([
    ['tmux 3.3a\n', [3, 3]],
    ['tmux 2.9', [2, 9]],
    ['tmux next-3.5', [3, 5]],
    ['tmux master', undefined],
  ])('parses the tmux version %j', (out, expected) => {
    expect(parseTmuxVersion(out)).toEqual(expected);
  });
});
