import { describe, expect, it } from 'vitest';
import { jumpToPane } from '../../src/operations/jump-to-pane.js';
import { showMessageNearPanes } from '../../src/tmux/clients.js';
import { createTmuxClient } from '../../src/tmux/client.js';
import { FIELD_SEPARATOR } from '../../src/tmux/formats.js';
import type { RunTmux, TmuxResult } from '../../src/tmux/run.js';

/** A RunTmux that records argv and answers from a script. */
function recordingRunTmux(
  answer: (args: readonly string[]) => Partial<TmuxResult>,
) {
  const calls: string[][] = [];
  const run: RunTmux = (args) => {
    calls.push([...args]);
    return Promise.resolve({
      exitCode: 0,
      stdout: '',
      stderr: '',
      ...answer(args),
    });
  };
  return { run, calls };
}

const paneLine = (pane: string, session: string) =>
  [
    pane,
    '100',
    '0',
    '',
    '0',
    '80',
    '24',
    '1',
    'node',
    'title',
    'w1',
    session,
    'worker-1',
    '',
  ].join(FIELD_SEPARATOR);

function fakeServer(socketPath = '/tmp/tmux-0/macs-abc') {
  return recordingRunTmux((args) => {
    const cmd = args[2];
    if (cmd === 'display-message' && args.includes('-p')) {
      const format = args.at(-1) ?? '';
      if (format === '#{socket_path}') return { stdout: `${socketPath}\n` };
      return { stdout: `${paneLine('%3', 'work')}\n` };
    }
    if (cmd === 'list-clients')
      return {
        stdout: [
          `/dev/pts/1${FIELD_SEPARATOR}%9${FIELD_SEPARATOR}0`,
          `/dev/pts/2${FIELD_SEPARATOR}%5${FIELD_SEPARATOR}0`,
          // A bridge's control-mode connection: no screen to show it on.
          `client-77${FIELD_SEPARATOR}%3${FIELD_SEPARATOR}1`,
        ].join('\n'),
      };
    return {};
  });
}

describe('jumpToPane', () => {
  it('selects the window and the pane, and tells how to attach when not inside tmux', async () => {
    const { run, calls } = fakeServer();
    const result = await jumpToPane(
      createTmuxClient('macs-abc', run),
      'worker-1',
      '%3',
      {},
    );
    expect(calls.slice(1)).toEqual([
      ['-L', 'macs-abc', 'select-window', '-t', '%3'],
      ['-L', 'macs-abc', 'select-pane', '-t', '%3'],
    ]);
    expect(result).toEqual({
      ok: true,
      message:
        'selected worker-1 (%3, window w1 of session work); see it with: tmux -L macs-abc attach -t work',
    });
  });

  it('inside tmux on the same server, switches the client showing the status view', async () => {
    const { run, calls } = fakeServer();
    const result = await jumpToPane(
      createTmuxClient('macs-abc', run),
      'worker-1',
      '%3',
      {
        TMUX: '/tmp/tmux-0/macs-abc,123,0',
        TMUX_PANE: '%9',
      },
    );
    expect(calls.at(-1)).toEqual([
      '-L',
      'macs-abc',
      'switch-client',
      '-c',
      '/dev/pts/1',
      '-t',
      '%3',
    ]);
    expect(result.message).toBe(
      'showing worker-1 (%3, window w1 of session work)',
    );
  });

  it('never switches a client of another server', async () => {
    const { run, calls } = fakeServer('/tmp/tmux-0/other');
    await jumpToPane(createTmuxClient('macs-abc', run), 'worker-1', '%3', {
      TMUX: '/tmp/tmux-0/default,1,0',
      TMUX_PANE: '%9',
    });
    expect(calls.some((c) => c.includes('switch-client'))).toBe(false);
  });

  it('reports a missing or unknown pane as a value', async () => {
    const { run } = recordingRunTmux(() => ({
      exitCode: 1,
      stderr: "can't find pane: %7",
    }));
    const tmux = createTmuxClient('s', run);
    expect(await jumpToPane(tmux, 'worker-1', null, {})).toEqual({
      ok: false,
      message: 'no pane is known for worker-1',
    });
    expect(await jumpToPane(tmux, 'worker-1', '%7', {})).toMatchObject({
      ok: false,
      message: expect.stringContaining('could not jump to worker-1'),
    });
  });
});

describe('showMessageNearPanes', () => {
  it('shows the message, escaped, to every client of the panes’ sessions, once per session', async () => {
    const { run, calls } = fakeServer();
    const shown = await showMessageNearPanes(
      createTmuxClient('s', run),
      ['%3', '%4'],
      'ask #1: 50% #{done}?',
    );
    expect(shown).toBe(2);
    expect(calls.filter((c) => c[2] === 'list-clients')).toEqual([
      [
        '-L',
        's',
        'list-clients',
        '-F',
        `#{client_name}${FIELD_SEPARATOR}#{pane_id}${FIELD_SEPARATOR}#{client_control_mode}`,
        '-t',
        'work',
      ],
    ]);
    expect(
      calls.filter((c) => c[2] === 'display-message' && !c.includes('-p')),
    ).toEqual([
      [
        '-L',
        's',
        'display-message',
        '-c',
        '/dev/pts/1',
        '-d',
        '8000',
        'ask ##1: 50%% ##{done}?',
      ],
      [
        '-L',
        's',
        'display-message',
        '-c',
        '/dev/pts/2',
        '-d',
        '8000',
        'ask ##1: 50%% ##{done}?',
      ],
    ]);
  });
});
