import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliDeps } from '../../src/cli/options.js';
import { createMemoryOutput } from '../../src/cli/output.js';
import { buildProgram } from '../../src/cli/program.js';
import { createEventLog } from '../../src/events/log.js';
import { resolveHomePaths } from '../../src/home/paths.js';

function makeDeps(cwd: string, stdin = '', env: NodeJS.ProcessEnv = {}) {
  const output = createMemoryOutput();
  const deps: CliDeps = {
    output,
    env,
    cwd,
    runTmux: () => Promise.reject(new Error('no tmux in this test')),
    readStdin: () => Promise.resolve(stdin),
    stdinIsTTY: false,
    interrupted: new Promise(() => undefined),
  };
  return { deps, output };
}

function writeConfig(home: string, workers: string[]): void {
  writeFileSync(
    path.join(home, 'macs.config.json'),
    JSON.stringify({
      workers: workers.map((name) => ({ name, command: 'claude' })),
    }),
  );
}

describe('macs hook / macs hooks / macs events --stats', () => {
  let home: string;
  let project: string;
  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-cli-hooks-'));
    project = path.join(home, 'project');
    mkdirSync(project);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('`macs hook` prints only the reply and exits 0, even for bad input or unknown flags', async () => {
    const ok = makeDeps(
      home,
      JSON.stringify({
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'rm -rf ~' },
      }),
    );
    expect(
      await buildProgram(ok.deps).run([
        'hook',
        'PreToolUse',
        '--agent',
        'w1',
        '--home',
        home,
      ]),
    ).toBe(0);
    expect(ok.output.stdout).toHaveLength(1);
    expect(
      JSON.parse(ok.output.stdout[0] ?? '').hookSpecificOutput
        .permissionDecision,
    ).toBe('deny');
    expect(ok.output.stderr).toEqual([]);

    const bad = makeDeps(home, '{not json', {
      MACS_AGENT: 'w1',
      MACS_HOME: home,
    });
    expect(
      await buildProgram(bad.deps).run([
        'hook',
        'Stop',
        '--from-a-newer-macs',
        'x',
        'extra',
      ]),
    ).toBe(0);
    expect(bad.output.stdout).toEqual([]);
    expect(bad.output.stderr).toEqual([]);
  });

  it('`macs hooks install` twice changes nothing the second time; uninstall keeps the user hooks', async () => {
    writeConfig(home, ['worker-1']);
    const file = path.join(project, '.claude', 'settings.local.json');
    mkdirSync(path.dirname(file));
    const user = {
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
      },
    };
    writeFileSync(file, JSON.stringify(user, null, 2));
    const run = async (args: string[]) => {
      const { deps, output } = makeDeps(home);
      const code = await buildProgram(deps).run([
        ...args,
        '--home',
        home,
        '--dir',
        project,
      ]);
      return { code, out: output.stdout.join('\n') };
    };
    const first = await run(['hooks', 'install', 'worker-1']);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/installed macs hooks for worker-1/);
    const installed = readFileSync(file, 'utf8');
    expect(JSON.parse(installed).hooks.Stop).toHaveLength(2);
    const second = await run(['hooks', 'install', 'worker-1']);
    expect(second.out).toMatch(/already installed.*nothing changed/);
    expect(readFileSync(file, 'utf8')).toBe(installed);
    const removed = await run(['hooks', 'uninstall', 'worker-1']);
    expect(removed.out).toMatch(/removed 12 macs hooks/);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(user);
  });

  it('`macs hooks install` for Codex prints the notify line instead of editing ~/.codex', async () => {
    writeConfig(home, ['cx']);
    const { deps, output } = makeDeps(home);
    const code = await buildProgram(deps).run([
      'hooks',
      'install',
      'cx',
      '--preset',
      'codex',
      '--home',
      home,
      '--dir',
      project,
    ]);
    expect(code).toBe(0);
    expect(output.stdout.join('\n')).toMatch(/notify = ?\[.*"hook", "notify"/);
  });

  // Bug (issue 29): `macs hooks install nosuch` succeeded and wrote
  // .claude/settings.local.json with hooks that report as an agent no one
  // supervises; `uninstall nosuch` said all was well. Strategy: a home whose
  // config names worker-1; a name it does not know is refused (exit 2,
  // naming its agents) and no file is written; uninstall still removes the
  // hooks of a name the home forgot, when the file has them.
  it('`macs hooks install|uninstall` refuse an agent the home does not know', async () => {
    writeConfig(home, ['worker-1']);
    const file = path.join(project, '.claude', 'settings.local.json');
    const run = async (args: string[], cwd = home) => {
      const { deps, output } = makeDeps(cwd);
      const code = await buildProgram(deps)
        .run([...args, '--dir', project])
        .catch((error: Error & { exitCode?: number; hint?: string }) => {
          output.stderr.push(`${error.message}\n${error.hint ?? ''}`);
          return error.exitCode ?? -1;
        });
      return { code, err: output.stderr.join('\n') };
    };
    const install = await run(['hooks', 'install', 'nosuch']);
    expect(install.code).toBe(2);
    expect(install.err).toMatch(/no agent 'nosuch'/);
    expect(install.err).toMatch(/its agents: worker-1/);
    expect(existsSync(file)).toBe(false);

    const uninstall = await run(['hooks', 'uninstall', 'nosuch']);
    expect(uninstall.code).toBe(2);
    expect(uninstall.err).toMatch(/no agent 'nosuch'.*no macs hooks for it/);

    // Found from a folder below the home, as every command finds it.
    expect((await run(['hooks', 'install', 'worker-1'], project)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(`'--home' '${home}'`);
    // The config forgets worker-1: its hooks can still be removed.
    writeConfig(home, []);
    expect((await run(['hooks', 'install', 'worker-1'])).code).toBe(2);
    expect((await run(['hooks', 'uninstall', 'worker-1'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toContain('worker-1');
  });

  // Bug (issue 29): `macs events --agent nosuch` printed "no events", as for
  // an agent that exists and has been quiet. Strategy: a home with the
  // events of w1 (a session gone, no state, no config) and the config's
  // worker-1 (no events yet): both are agents; nosuch is refused (exit 2,
  // naming them), and with --follow it is a warning (it may appear later).
  it('`macs events --agent` says an agent the home never had is unknown', async () => {
    writeConfig(home, ['worker-1']);
    await createEventLog(resolveHomePaths(home)).emit({
      agent: 'w1',
      type: 'bridge.started',
    });
    const run = async (args: string[], interrupted = false) => {
      const { deps, output } = makeDeps(home);
      if (interrupted) deps.interrupted = Promise.resolve('SIGINT');
      const code = await buildProgram(deps)
        .run(['events', ...args, '--home', home, '--log-level', 'silent'])
        .catch((error: Error & { exitCode?: number; hint?: string }) => {
          output.stderr.push(`${error.message}\n${error.hint ?? ''}`);
          return error.exitCode ?? -1;
        });
      return {
        code,
        out: output.stdout.join('\n'),
        err: output.stderr.join('\n'),
      };
    };
    const gone = await run(['--agent', 'w1']);
    expect(gone.code).toBe(0);
    expect(gone.out).toMatch(/w1\s+bridge\.started/);
    const quiet = await run(['--agent', 'worker-1']);
    expect(quiet).toMatchObject({ code: 0, out: 'no events' });
    const typo = await run(['--agent', 'nosuch']);
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(/no agent 'nosuch'/);
    expect(typo.err).toMatch(/its agents: w1, worker-1/);
    expect((await run(['--agent', 'nosuch', '--stats'])).code).toBe(2);
    const follow = await run(['--agent', 'nosuch', '--follow'], true);
    expect(follow.code).toBe(0);
    expect(follow.err).toMatch(/warning: no agent 'nosuch'/);
  });

  it('`macs events --stats` prints counts and latency percentiles', async () => {
    const log = createEventLog(resolveHomePaths(home));
    const t = (s: number) =>
      new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    await log.emit({
      ts: t(0),
      agent: 'w1',
      type: 'request.detected',
      requestId: 'w1-a',
    });
    await log.emit({
      ts: t(2),
      agent: 'w1',
      type: 'request.routed',
      requestId: 'w1-a',
    });
    await log.emit({ ts: t(9), agent: 'w1', type: 'hook.Stop' });
    const { deps, output } = makeDeps(home);
    expect(
      await buildProgram(deps).run([
        'events',
        '--stats',
        '--home',
        home,
        '--log-level',
        'silent',
      ]),
    ).toBe(0);
    const text = output.stdout.join('\n');
    expect(text).toContain('3 events');
    expect(text).toMatch(/hook\.Stop\s+1/);
    expect(text).toMatch(/detected→routed\s+1\s+2\.0s\s+2\.0s/);
    const json = makeDeps(home);
    await buildProgram(json.deps).run([
      'events',
      '--stats',
      '--json',
      '--home',
      home,
      '--log-level',
      'silent',
    ]);
    expect(JSON.parse(json.output.stdout.join('\n'))).toMatchObject({
      total: 3,
      requests: 1,
    });
    const follow = makeDeps(home);
    expect(
      await buildProgram(follow.deps)
        .run([
          'events',
          '--stats',
          '--follow',
          '--home',
          home,
          '--log-level',
          'silent',
        ])
        .catch((e: Error) => e.message),
    ).toMatch(/--stats and --follow/);
  });
});
