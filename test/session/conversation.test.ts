import { describe, expect, it } from 'vitest';
import {
  buildNamedSessionLaunch,
  buildResumeLaunch,
  choosesOwnConversation,
  isConversationId,
  withLaunchArgs,
} from '../../src/session/resumable-conversation.js';
import {
  buildLaunchArgv,
  type LaunchCommand,
} from '../../src/session/session-layout.js';
import type { AgentLaunch } from '../../src/session/record.js';

const ID = '0c366cc4-3d9e-49ae-b4fa-71c59f9c2b54';

function launchOf(command: LaunchCommand): AgentLaunch {
  return { argv: buildLaunchArgv(command), cwd: '/work', env: { A: '1' } };
}

/** The agent's own command inside the launcher (what the launcher execs). */
function inner(launch: AgentLaunch | undefined): string[] | undefined {
  return launch?.argv.slice(5);
}

describe('the command lines that continue a conversation', () => {
  it.each([
    [
      'claude',
      ['claude', '--settings', '/h/.macs/settings/w.json'],
      ['claude', '--settings', '/h/.macs/settings/w.json', '--resume', ID],
    ],
    ['gemini', ['gemini', '-m', 'x'], ['gemini', '-m', 'x', '--resume', ID]],
    // Codex: a subcommand right after the program; its options follow.
    ['codex', ['codex', '--yolo'], ['codex', 'resume', ID, '--yolo']],
  ] as const)('%s (argv)', (preset, argv, expected) => {
    const launch = launchOf({ kind: 'argv', argv });
    const resumed = buildResumeLaunch(launch, preset, ID);
    expect(inner(resumed)).toEqual(expected);
    // The launcher, its folder and environment stay as they were.
    expect(resumed?.argv.slice(0, 5)).toEqual(launch.argv.slice(0, 5));
    expect(resumed?.cwd).toBe('/work');
    expect(resumed?.env).toEqual({ A: '1' });
    // The recorded launch is not changed.
    expect(inner(launch)).toEqual(argv);
  });

  it.each([
    [
      'claude',
      'claude --model opus',
      `exec claude --model opus '--resume' '${ID}'`,
    ],
    ['codex', 'codex -m o3', `exec codex 'resume' '${ID}' -m o3`],
  ] as const)('%s (a shell command line)', (preset, text, expected) => {
    const resumed = buildResumeLaunch(
      launchOf({ kind: 'shell', text }),
      preset,
      ID,
    );
    expect(inner(resumed)).toEqual(['sh', '-c', expected]);
  });

  it('gives up on a shell command line that is not one simple command', () => {
    const launch = launchOf({ kind: 'shell', text: 'cd x && claude' });
    expect(buildResumeLaunch(launch, 'claude', ID)).toBeUndefined();
    expect(withLaunchArgs(launch, ['--x'], 'end')).toBeUndefined();
  });

  it('never puts anything but a UUID on a command line', () => {
    const launch = launchOf({ kind: 'argv', argv: ['claude'] });
    for (const bad of ['', 'x', `${ID}; rm -rf /`, `--help`, `${ID}\n`])
      expect(buildResumeLaunch(launch, 'claude', bad)).toBeUndefined();
    expect(isConversationId(ID)).toBe(true);
    expect(isConversationId(ID.toUpperCase())).toBe(true);
    expect(isConversationId(42)).toBe(false);
  });

  it('names a new Gemini session with --session-id', () => {
    const launch = launchOf({ kind: 'argv', argv: ['gemini'] });
    expect(inner(buildNamedSessionLaunch(launch, ID))).toEqual([
      'gemini',
      '--session-id',
      ID,
    ]);
  });

  it.each([
    ['claude', ['claude', '--continue'], true],
    ['claude', ['claude', '-r', ID], true],
    ['claude', ['claude', '--settings', 'f'], false],
    ['codex', ['codex', 'resume', '--last'], true],
    ['codex', ['codex', '-m', 'o3'], false],
    ['gemini', ['gemini', '--resume', 'latest'], true],
    ['gemini', ['gemini', '--session-id=x'], true],
    ['gemini', ['gemini'], false],
  ] as const)(
    '%s %j chooses its own conversation: %s',
    (preset, argv, expected) => {
      expect(
        choosesOwnConversation(preset, launchOf({ kind: 'argv', argv }).argv),
      ).toBe(expected);
    },
  );
});
