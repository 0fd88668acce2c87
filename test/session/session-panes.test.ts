import { describe, expect, it } from 'vitest';
import { TmuxError } from '../../src/errors.js';
import { resolveHomePaths } from '../../src/home/paths.js';
import {
  BRIDGE_WINDOW,
  PLACEHOLDER_COMMAND,
  STATUS_HOOK,
  STATUS_WINDOW,
} from '../../src/session/session-layout.js';
import {
  addSessionPanes,
  newAgentsSession,
  paneOutput,
  startSessionWindows,
} from '../../src/session/session-panes.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';

const paths = resolveHomePaths('/project');

describe('session panes (fake tmux)', () => {
  it('makes the session, a pane per agent and the two windows, all running the placeholder', async () => {
    const tmux = new FakeTmuxClient();
    const first = await newAgentsSession(tmux, '/project/a');
    expect(tmux.commands).toHaveLength(1);
    expect(tmux.commands[0]?.[0]).toBe('new-session');
    expect(tmux.commands[0]).toEqual(expect.arrayContaining(['/project/a']));

    const panes = await addSessionPanes(tmux, paths, first, [
      '/project/b',
      '/project/c',
    ]);
    expect(panes.agents).toHaveLength(3);
    expect(panes.agents[0]).toBe(first);
    expect(new Set([...panes.agents, panes.bridge, panes.status]).size).toBe(5);
    expect(tmux.panes.get(panes.bridge)?.windowName).toBe(BRIDGE_WINDOW);
    expect(tmux.panes.get(panes.status)?.windowName).toBe(STATUS_WINDOW);

    const made = tmux.commands.filter((a) =>
      ['new-session', 'split-window', 'new-window'].includes(a[0] ?? ''),
    );
    for (const args of made)
      expect(args.slice(-PLACEHOLDER_COMMAND.length)).toEqual(
        PLACEHOLDER_COMMAND,
      );
    const splits = tmux.commands.filter((a) => a[0] === 'split-window');
    expect(splits.map((a) => a[a.indexOf('-c') + 1])).toEqual([
      '/project/b',
      '/project/c',
    ]);
    expect(tmux.commands.filter((a) => a[0] === 'select-layout')).toEqual([
      ['select-layout', '-t', first, 'tiled'],
      ['select-layout', '-t', first, 'tiled'],
    ]);
    expect(
      tmux.commands
        .filter((a) => a.includes('remain-on-exit'))
        .map((a) => a[3]),
    ).toEqual([first, panes.bridge, panes.status]);
    expect(
      tmux.commands.filter(
        (a) =>
          a.includes('pane-border-status') || a.includes('pane-border-format'),
      ),
    ).toHaveLength(2);
  });

  it('gives the bridge and status windows their programs, with the session in their environment', async () => {
    const tmux = new FakeTmuxClient();
    await startSessionWindows(tmux, {
      paths,
      socket: 'macs-test',
      macsArgv: ['node', '/pkg/dist/main.js'],
      configFile: '/project/other.json',
      bridge: '%7',
      status: '%8',
    });
    const [hook, bridge, status] = tmux.commands;
    // The status view starts when a person's client attaches.
    expect(hook).toEqual([
      'set-hook',
      '-t',
      '=macs:',
      'client-attached',
      STATUS_HOOK,
    ]);
    expect(bridge?.slice(0, 4)).toEqual(['respawn-pane', '-k', '-t', '%7']);
    expect(bridge).toEqual(
      expect.arrayContaining([
        'MACS_HOME=/project',
        'MACS_TMUX_SOCKET=macs-test',
        'bridge',
        '--all',
        '/project/other.json',
      ]),
    );
    expect(status?.slice(0, 4)).toEqual(['respawn-pane', '-k', '-t', '%8']);
    expect(status).toEqual(
      expect.arrayContaining([
        'MACS_HOME=/project',
        'MACS_TMUX_SOCKET=macs-test',
      ]),
    );
    expect(tmux.commands).toHaveLength(3);
  });

  it('fails when tmux does not print a pane id', async () => {
    const tmux = new FakeTmuxClient();
    await expect(paneOutput(tmux, ['new-session'])).resolves.toMatch(/^%\d+$/);
    const error: unknown = await paneOutput(tmux, ['list-panes']).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TmuxError);
    expect((error as TmuxError).message).toBe(
      "tmux list-panes did not print a pane id: ''",
    );
  });
});
