import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
} from '../../src/session/session-layout.js';
import { tmuxSocketPath } from '../../src/tmux/probe.js';

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

  /**
   * Run the status window's script with a stand-in for tmux (MACS_TMUX)
   * that lists the clients `clients` and whose `wait-for` exits `woken`.
   */
  function runStatusWindow(options: {
    code: number;
    clients: string;
    woken?: number;
  }): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-status-script-'));
    try {
      const tmux = path.join(dir, 'tmux');
      writeFileSync(
        tmux,
        [
          '#!/bin/sh',
          'case "$*" in',
          `  *list-clients*) printf '${options.clients}' ;;`,
          `  *wait-for*) echo WAITED; exit ${options.woken ?? 0} ;;`,
          'esac',
        ].join('\n'),
        { mode: 0o755 },
      );
      const script = `echo "$@"; case "$1" in status) exit ${options.code};; events) echo FOLLOWING;; esac`;
      const argv = buildStatusCommand({
        macsArgv: ['sh', '-c', script, 'fake'],
        home: '/h',
        socket: 's',
      });
      return execFileSync(argv[0] ?? 'sh', argv.slice(1), {
        encoding: 'utf8',
        env: { ...process.env, MACS_TMUX: tmux, TMUX_PANE: '%9' },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('falls back to the event log when `macs status --watch` fails, but not when it was quit or interrupted', () => {
    const run = (code: number) => runStatusWindow({ code, clients: '1\n0\n' });
    expect(run(2)).toContain('FOLLOWING');
    expect(run(2)).toContain('not available or failed (exit 2)');
    expect(run(0)).not.toContain('FOLLOWING');
  });

  it('starts the view at once when a person is attached, else waits for one', () => {
    // A person's client (control mode 0) beside the bridge's (1): no wait.
    const attached = runStatusWindow({ code: 0, clients: '1\n0\n' });
    expect(attached).not.toContain('WAITED');
    expect(attached).toContain('status --watch --home /h --tmux-socket s');
    // Only the bridge's: it says so, waits, then runs the view.
    const alone = runStatusWindow({ code: 0, clients: '1\n' });
    expect(alone).toContain('starts when someone attaches');
    expect(alone.indexOf('WAITED')).toBeLessThan(
      alone.indexOf('status --watch'),
    );
    // The wait interrupted (`macs stop`): no view.
    let failed: { status?: number; stdout?: string } = {};
    try {
      runStatusWindow({ code: 0, clients: '', woken: 1 });
    } catch (error) {
      failed = error as typeof failed;
    }
    expect(failed.status).toBe(130);
    expect(failed.stdout).not.toContain('status --watch');
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
