import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  SOCKET_PATH_MAX_BYTES,
  buildBridgeCommand,
  buildLaunchArgv,
  withExtraArgs,
  buildStatusCommand,
  defaultSocketName,
  execShellText,
  programOf,
  projectSlug,
  tmuxSocketPath,
} from '../../src/session/layout.js';

describe('socket naming', () => {
  it('names a home macs-<project>-<hash>, the same for the same home', () => {
    const name = defaultSocketName('/work/Shop API', {}, 1000);
    expect(name).toMatch(/^macs-shop-api-[0-9a-f]{8}$/);
    expect(defaultSocketName('/work/Shop API', {}, 1000)).toBe(name);
    expect(defaultSocketName('/other/Shop API', {}, 1000)).not.toBe(name);
    expect(projectSlug('/x/---')).toBe('');
    expect(defaultSocketName('/x/---', {}, 0)).toMatch(/^macs-[0-9a-f]{8}$/);
  });

  it('keeps the socket path within the unix limit: drops the project name, then gives up', () => {
    const deep = { TMUX_TMPDIR: `/${'d'.repeat(70)}` };
    const name = defaultSocketName('/work/a-long-project-name', deep, 1000);
    expect(name).toMatch(/^macs-[0-9a-f]{8}$/);
    expect(
      Buffer.byteLength(tmuxSocketPath(name ?? '', deep, 1000)),
    ).toBeLessThanOrEqual(SOCKET_PATH_MAX_BYTES);
    expect(
      defaultSocketName('/w/p', { TMUX_TMPDIR: `/${'d'.repeat(100)}` }, 1000),
    ).toBeUndefined();
  });
});

describe('launch commands', () => {
  it.each([
    ['codex --full-auto', 'exec codex --full-auto'],
    ['  claude  ', 'exec claude'],
    ['FOO=1 claude', 'FOO=1 claude'],
    ['make && codex', 'make && codex'],
    ['exec codex', 'exec codex'],
    ['(cd x; codex)', '(cd x; codex)'],
  ])('execs a simple shell command line: %j', (text, expected) => {
    expect(execShellText(text)).toBe(expected);
  });

  it('names the program to check on PATH', () => {
    expect(programOf({ kind: 'argv', argv: ['/usr/bin/node', 'x.js'] })).toBe(
      '/usr/bin/node',
    );
    expect(programOf({ kind: 'shell', text: 'codex --x' })).toBe('codex');
    expect(programOf({ kind: 'shell', text: 'FOO=1 codex' })).toBeUndefined();
  });

  it('runs the program through the launcher, which reports a missing program and exits 127', () => {
    const argv = buildLaunchArgv({
      kind: 'shell',
      text: 'no-such-program-xyz --flag',
    });
    expect(argv.slice(0, 2)).toEqual(['sh', '-c']);
    expect(argv.slice(3)).toEqual([
      'macs-launch',
      'no-such-program-xyz',
      'sh',
      '-c',
      'exec no-such-program-xyz --flag',
    ]);
    let status = 0;
    let stderr = '';
    try {
      execFileSync(argv[0] ?? 'sh', argv.slice(1), {
        env: { ...process.env, MACS_AGENT: 'w-1' },
        stdio: 'pipe',
      });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(127);
    expect(stderr).toContain(
      'macs: no-such-program-xyz: command not found (agent w-1)',
    );
    const ok = buildLaunchArgv({
      kind: 'argv',
      argv: ['sh', '-c', 'printf "%s" "$0"', 'arg with space'],
    });
    expect(execFileSync(ok[0] ?? 'sh', ok.slice(1), { encoding: 'utf8' })).toBe(
      'arg with space',
    );
  });

  it('starts the bridge and status windows with home and socket on their command lines', () => {
    expect(
      buildBridgeCommand({
        macsArgv: ['node', 'main.js'],
        home: '/h',
        socket: 's',
      }),
    ).toEqual([
      'node',
      'main.js',
      'bridge',
      '--all',
      '--home',
      '/h',
      '--tmux-socket',
      's',
    ]);
    const status = buildStatusCommand({
      macsArgv: ['node', 'main.js'],
      home: '/h',
      socket: 's',
    });
    expect(status.slice(3)).toEqual([
      'macs-status',
      '/h',
      's',
      'node',
      'main.js',
    ]);
  });

  it('falls back to the event log when `macs status --watch` fails, but not when it was quit or interrupted', () => {
    const run = (code: number) => {
      const script = `echo "$@" >> /dev/stdout; case "$1" in status) exit ${code};; events) echo FOLLOWING;; esac`;
      const argv = buildStatusCommand({
        macsArgv: ['sh', '-c', script, 'fake'],
        home: '/h',
        socket: 's',
      });
      return execFileSync(argv[0] ?? 'sh', argv.slice(1), { encoding: 'utf8' });
    };
    expect(run(2)).toContain('FOLLOWING');
    expect(run(2)).toContain('not available or failed (exit 2)');
    expect(run(0)).not.toContain('FOLLOWING');
  });
});

describe('withExtraArgs', () => {
  it('appends hook arguments to an argv command', () => {
    expect(
      withExtraArgs({ kind: 'argv', argv: ['claude', '--model', 'x'] }, [
        '--settings',
        '/h/.macs/settings/w.claude.json',
      ]),
    ).toEqual({
      kind: 'argv',
      argv: [
        'claude',
        '--model',
        'x',
        '--settings',
        '/h/.macs/settings/w.claude.json',
      ],
    });
  });

  it('quotes them at the end of one simple shell command', () => {
    expect(
      withExtraArgs({ kind: 'shell', text: 'claude --verbose ' }, [
        '--settings',
        "/it's/here.json",
      ]),
    ).toEqual({
      kind: 'shell',
      text: `claude --verbose '--settings' '/it'\\''s/here.json'`,
    });
  });

  it('refuses a compound shell command, and changes nothing without arguments', () => {
    expect(
      withExtraArgs({ kind: 'shell', text: 'cd x && claude' }, [
        '--settings',
        'f',
      ]),
    ).toBeUndefined();
    const same = { kind: 'shell', text: 'cd x && claude' } as const;
    expect(withExtraArgs(same, [])).toBe(same);
  });
});
