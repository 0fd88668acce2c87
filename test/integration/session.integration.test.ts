// `macs start` / `macs stop` / `macs bridge --all` on real tmux servers.
// Every test names a private server `macs-test-<random>` through
// MACS_TMUX_SOCKET, so no test touches a default or shared server, and
// waits on conditions (waitFor), never on fixed sleeps.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_AGENT,
  findEvents,
  REPO_ROOT,
  readAllEvents,
  readRecord,
  REQ,
  runMacs,
} from '../helpers/macs.js';
import {
  cleanUpSession,
  isAlive,
  isServerUp,
  processesMentioning,
  readSessionFile,
  readStateFile,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { ASK_TIMEOUT_MARGIN_SEC } from '../../src/hooks/hook-command.js';
import { tmuxSocketPath } from '../../src/tmux/probe.js';
import { waitFor } from '../helpers/wait-for.js';

describe('macs start / stop on a private tmux server', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-session-'));
    socket = testSocket();
  });

  afterEach(async () => {
    await cleanUpSession(home, socket);
    cleanup();
  });

  const macs = (
    args: string[],
    extra: {
      env?: Record<string, string>;
      timeoutMs?: number;
      cwd?: string;
    } = {},
  ) => runMacs(args, { home, socket, ...extra });

  const eventsOf = (type: string) => findEvents(home, type);

  /** `macs stop` ends everything: no server, no process naming the home or the socket. */
  async function stopAndCheckNothingLeft(pids: number[]): Promise<void> {
    const stop = await macs(['stop', '--grace-sec', '1']);
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(stop.stdout).toContain('the tmux server is gone');
    expect(await isServerUp(socket)).toBe(false);
    // tmux leaves its socket file; macs stop removes it.
    expect(
      existsSync(tmuxSocketPath(socket, process.env, process.getuid?.() ?? 0)),
    ).toBe(false);
    expect(processesMentioning(home, socket)).toEqual([]);
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(readSessionFile(home)).toBeUndefined();
  }

  /** On a failed wait: what the bridge window showed and the last events, to see why. */
  async function explain<T>(wait: Promise<T>): Promise<T> {
    try {
      return await wait;
    } catch (error) {
      const bridge = readSessionFile(home)?.panes.bridge ?? '';
      const screen =
        (await tmuxOn(
          socket,
          'capture-pane',
          '-p',
          '-S',
          '-60',
          '-t',
          bridge,
        )) ?? '';
      const panes =
        (await tmuxOn(
          socket,
          'list-panes',
          '-a',
          '-F',
          '#{pane_id} dead=#{pane_dead} status=#{pane_dead_status} signal=#{pane_dead_signal} #{window_name} [#{pane_title}] #{pane_current_command}',
        )) ?? '(no server)';
      const last = readAllEvents(home)
        .slice(-25)
        .map((e) => `${e.agent} ${e.type} ${JSON.stringify(e.data ?? {})}`);
      throw new Error(
        `${(error as Error).message}\n--- panes:\n${panes}\n--- bridge window:\n${screen}\n--- last events:\n${last.join('\n')}`,
      );
    }
  }

  /** The pids of the session's running panes (a dead pane's old pid may be reused). */
  async function pidsOfSession(): Promise<number[]> {
    const out =
      (await tmuxOn(
        socket,
        'list-panes',
        '-a',
        '-F',
        '#{pane_dead} #{pane_pid}',
      )) ?? '';
    return out
      .split('\n')
      .filter((line) => line.startsWith('0 '))
      .map((line) => Number(line.slice(2)));
  }

  it('runs the demo to completion with --detach, lists its agents, and stops leaving nothing behind', async () => {
    const start = await macs(['start', '--demo', '--detach'], {
      timeoutMs: 90_000,
    });
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    expect(start.stdout).toContain('The demo finished');
    expect(start.stdout).toContain('Try next');
    expect(start.stdout).toMatch(/stop/);
    // The demo ends within 30 seconds (its worker's own record of the run).
    const demoDir = path.join(home, '.macs', 'demo');
    const result = JSON.parse(
      readFileSync(path.join(demoDir, readdirSync(demoDir)[0] ?? ''), 'utf8'),
    ) as { startedAt: string; finishedAt: string; requests: unknown[] };
    expect(
      Date.parse(result.finishedAt) - Date.parse(result.startedAt),
    ).toBeLessThan(30_000);
    expect(result.requests).toHaveLength(4);

    // Every demo request: detected, answered, delivered (events), in that order.
    const detected = eventsOf('request.detected').filter(
      (e) => e.agent === 'worker-1',
    );
    expect(detected.length).toBeGreaterThanOrEqual(3);
    const types = new Set(detected.map((e) => String(e.data?.type)));
    expect(types.size).toBeGreaterThanOrEqual(3);
    for (const type of ['question', 'approval', 'review'])
      expect(types).toContain(type);
    for (const request of detected) {
      const steps = readAllEvents(home)
        .filter((e) => e.requestId === request.requestId)
        .map((e) => e.type)
        .filter((t) =>
          [
            'request.detected',
            'request.answered',
            'request.delivered',
          ].includes(t),
        );
      expect(steps, request.requestId).toEqual([
        'request.detected',
        'request.answered',
        'request.delivered',
      ]);
    }
    // The worker protocol was its first message; the notes never reached it.
    expect(eventsOf('agent.prompted').map((e) => e.agent)).toEqual([
      'worker-1',
    ]);
    const worker = readSessionFile(home)?.agents.find(
      (a) => a.name === 'worker-1',
    );
    expect(worker?.prompt?.promptedAt).toMatch(/^\d{4}-/);
    const screen =
      (await tmuxOn(
        socket,
        'capture-pane',
        '-p',
        '-S',
        '-',
        '-t',
        worker?.pane ?? '',
      )) ?? '';
    expect(screen).toContain('demo finished');
    expect(screen).not.toContain('macs should have kept from me');

    // The agents are listed: state files, and `macs status --json` when it exists.
    expect(readStateFile(home, 'worker-1')?.preset).toBe('generic');
    expect(readStateFile(home, 'controller')).toBeDefined();
    const status = await macs(['status', '--json']);
    if (status.exitCode === 0) {
      const names = (
        JSON.parse(status.stdout) as { agents: { name: string }[] }
      ).agents.map((a) => a.name);
      expect(names).toEqual(expect.arrayContaining(['controller', 'worker-1']));
    }

    await stopAndCheckNothingLeft(await pidsOfSession());
  });

  it("the README's first command runs the demo", async () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const [first, second] = block.trim().split('\n');
    expect(first).toBe('./scripts/setup.sh && node dist/main.js start --demo');
    expect(second).toBe('npm run test:all');
    // .ci/run runs the same two: the set-up, then the whole suite.
    const ci = readFileSync(path.join(REPO_ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toContain('./scripts/setup.sh');
    expect(ci).toContain(second);
    expect(
      statSync(path.join(REPO_ROOT, 'scripts', 'setup.sh')).mode & 0o100,
    ).toBeTruthy();
    // setup.sh (tmux, npm ci, build) has run for this test suite; run the rest as written,
    // from the repository, with the home pointed at a temp folder. Not on a terminal,
    // it starts detached and follows the demo to its end.
    const command = (first ?? '').split('&&')[1]?.trim().split(/\s+/) ?? [];
    expect(command.slice(0, 2)).toEqual(['node', 'dist/main.js']);
    const run = await macs(command.slice(2), {
      cwd: REPO_ROOT,
      timeoutMs: 90_000,
    });
    expect(run.exitCode, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toContain('not on a terminal');
    expect(run.stdout).toContain('The demo finished');
    expect(eventsOf('request.delivered').length).toBeGreaterThanOrEqual(3);
    await stopAndCheckNothingLeft(await pidsOfSession());
  });

  it("runs the demo a second time in the same home: the rerun's requests are never taken for repeats", async () => {
    // Bug (issue 29): the loop guards read the agent's history back from the
    // event log over the last hour, across sessions, so the rerun's first
    // request (the same body as the first run's) tripped the `repeat` guard,
    // went to a person, and the demo hung. Strategy: run the demo, stop,
    // run it again in the same home; the second run must finish, and no
    // request of it may be routed by a guard.
    const first = await macs(['start', '--demo', '--detach'], {
      timeoutMs: 90_000,
    });
    expect(first.exitCode, first.stderr + first.stdout).toBe(0);
    await stopAndCheckNothingLeft(await pidsOfSession());
    const second = await macs(['start', '--demo', '--detach'], {
      timeoutMs: 90_000,
    });
    expect(second.exitCode, second.stderr + second.stdout).toBe(0);
    expect(second.stdout).toContain('The demo finished');
    expect(eventsOf('request.routed').filter((e) => e.data?.guard)).toEqual([]);
    expect(eventsOf('attention').map((e) => e.data?.reason)).not.toContain(
      'repeat',
    );
    await stopAndCheckNothingLeft(await pidsOfSession());
  });

  it("a start no hub asked for follows the home's own policy, not a hub's file left from an earlier session", async () => {
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        policy: { askTimeoutSec: 40 },
        workers: [{ name: 'w', preset: 'claude', command: ['sh'] }],
      }),
    );
    // What a hub's start left (docs/remote.md), with its own ask timeout.
    const hubFile = path.join(home, '.macs', 'hub-policy.json');
    mkdirSync(path.dirname(hubFile), { recursive: true, mode: 0o700 });
    writeFileSync(hubFile, JSON.stringify({ askTimeoutSec: 999 }), {
      mode: 0o600,
    });
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    expect(existsSync(hubFile)).toBe(false);
    // The agent's hooks wait the home's ask timeout (plus the margin).
    const settings = readFileSync(
      path.join(home, '.macs', 'settings', 'w.claude.json'),
      'utf8',
    );
    expect(settings).toContain(`"timeout": ${40 + ASK_TIMEOUT_MARGIN_SEC}`);
    expect(settings).not.toContain(
      `"timeout": ${999 + ASK_TIMEOUT_MARGIN_SEC}`,
    );
  });

  it('the demo also runs with the interactive backend (the switch point)', async () => {
    const start = await macs(
      ['start', '--demo', '--detach', '--backend', 'interactive'],
      { timeoutMs: 90_000 },
    );
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    const answered = eventsOf('request.answered').filter(
      (e) => e.agent === 'worker-1',
    );
    expect(answered.length).toBeGreaterThanOrEqual(3);
    for (const e of answered)
      expect(String(e.data?.source)).toMatch(/^controller:%\d+$/);
    await stopAndCheckNothingLeft(await pidsOfSession());
  });

  it('starts two workers of different presets under one bridge; one dying leaves the other going', async () => {
    const script = (name: string, steps: unknown[]) => {
      const file = path.join(home, `${name}.json`);
      writeFileSync(file, JSON.stringify(steps));
      return file;
    };
    const goB2 = path.join(home, 'go-b2');
    const recA = path.join(home, 'a.rec');
    const recB = path.join(home, 'b.rec');
    const fake = (name: string, steps: unknown[], rec: string) => [
      process.execPath,
      FAKE_AGENT,
      '--script',
      script(name, steps),
      '--record',
      rec,
    ];
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        workers: [
          // generic has no hooks: it gets prompts/worker.md as its first message.
          {
            name: 'worker-a',
            preset: 'generic',
            command: fake(
              'a',
              [
                { wait: 'submit' },
                {
                  print: REQ('a1', 'Use sqlite or postgres?', ' type=question'),
                },
                { wait: 'submit' },
              ],
              recA,
            ),
          },
          // claude has hooks: no first message. It is a known agent: each
          // request is followed by the prompt, a screen its preset reads
          // as idle (an unreadable one is never typed into).
          {
            name: 'worker-b',
            preset: 'claude',
            command: fake(
              'b',
              [
                {
                  print: `${REQ('b1', 'May I add a dependency?', ' type=approval')}❯ `,
                },
                { wait: 'submit' },
                { waitFile: goB2 },
                {
                  print: `${REQ('b2', 'Ready for review.', ' type=review')}❯ `,
                },
                { wait: 'submit' },
              ],
              recB,
            ),
          },
        ],
      }),
    );
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    const session = readSessionFile(home);
    expect(session?.agents.map((a) => [a.name, a.preset])).toEqual([
      ['worker-a', 'generic'],
      ['worker-b', 'claude'],
    ]);
    const paneA = session?.agents[0]?.pane ?? '';
    const paneB = session?.agents[1]?.pane ?? '';
    expect(paneA).not.toBe(paneB);

    const idA = 'worker-a-a1';
    const idB = 'worker-b-b1';
    await explain(
      waitFor(
        () =>
          readAllEvents(home).some(
            (e) => e.requestId === idA && e.type === 'request.routed',
          ) &&
          readAllEvents(home).some(
            (e) => e.requestId === idB && e.type === 'request.routed',
          ),
        { timeout: 30_000, message: 'both requests routed' },
      ),
    );
    // One bridge process supervises both: the two agent locks hold the same pid.
    const lock = (agent: string) =>
      readFileSync(
        path.join(home, '.macs', 'state', `${agent}.lock`),
        'utf8',
      ).trim();
    expect(lock('worker-a')).toBe(lock('worker-b'));
    const bridges = processesMentioning(`bridge --all --home ${home}`);
    expect(bridges).toHaveLength(1);
    // A long-lived process: without V8's memory reducer (self-command.ts).
    expect(bridges[0]).toMatch(
      / --no-memory-reducer \S+main\.js bridge --all /,
    );

    expect((await macs(['respond', idA, 'Use sqlite.'])).exitCode).toBe(0);
    expect((await macs(['respond', idB, 'Yes, add it.'])).exitCode).toBe(0);
    await explain(
      waitFor(() => eventsOf('request.delivered').length >= 2, {
        timeout: 20_000,
        message: 'both delivered',
      }),
    );
    // The fake agents write down a submission once they have read it: a
    // moment after the bridge pressed the key (longer on a busy machine).
    const submitted = (file: string) =>
      readRecord(file).filter((r) => r.type === 'submit').length;
    await explain(
      waitFor(() => submitted(recA) >= 2 && submitted(recB) >= 1, {
        timeout: 20_000,
        message: 'both workers read their answers',
      }),
    );
    const submitsA = readRecord(recA)
      .filter((r) => r.type === 'submit')
      .map((r) => r.text ?? '');
    const submitsB = readRecord(recB)
      .filter((r) => r.type === 'submit')
      .map((r) => r.text ?? '');
    expect(submitsA[0]).toMatch(/^macs: you are worker-a/);
    expect(submitsA[0]).toContain('CONTROLLER_REQUEST');
    expect(submitsA[1]).toBe('Use sqlite.');
    expect(submitsB).toEqual(['Yes, add it.']);

    // Kill worker-a's program: it is marked dead with how it ended; worker-b goes on.
    const pidA = session?.agents[0]?.pid ?? 0;
    expect(pidA).toBeGreaterThan(0);
    process.kill(pidA, 'SIGKILL');
    await explain(
      waitFor(
        () =>
          readStateFile(home, 'worker-a')?.exitCode !== undefined &&
          eventsOf('agent.exited').length > 0,
        {
          timeout: 15_000,
          message: 'worker-a dead',
        },
      ),
    );
    expect(readStateFile(home, 'worker-a')).toMatchObject({
      state: 'dead',
      exitCode: 137,
      exitSignal: 9,
    });
    expect(eventsOf('agent.exited').map((e) => e.agent)).toEqual(['worker-a']);

    writeFileSync(goB2, '');
    await explain(
      waitFor(
        () =>
          readAllEvents(home).some(
            (e) => e.requestId === 'worker-b-b2' && e.type === 'request.routed',
          ),
        { timeout: 15_000, message: 'b2 routed' },
      ),
    );
    expect((await macs(['respond', 'worker-b-b2', 'Approved.'])).exitCode).toBe(
      0,
    );
    await explain(
      waitFor(
        () =>
          readAllEvents(home).some(
            (e) =>
              e.requestId === 'worker-b-b2' && e.type === 'request.delivered',
          ),
        { timeout: 15_000, message: 'b2 delivered' },
      ),
    );
    expect(readStateFile(home, 'worker-b')?.state).not.toBe('dead');
    expect(
      readRecord(recB)
        .filter((r) => r.type === 'submit')
        .map((r) => r.text),
    ).toEqual(['Yes, add it.', 'Approved.']);

    await stopAndCheckNothingLeft(await pidsOfSession());
  });

  it("a worktree worker's pane runs in its own worktree on its branch, reused on the next start", async () => {
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: home, encoding: 'utf8' }).trim();
    git('init', '-q');
    git(
      '-c',
      'user.email=t@example.com',
      '-c',
      'user.name=t',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'init',
    );
    const show = "sh -c 'git branch --show-current; pwd -P; exec sleep 600'";
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        workers: [
          { name: 'w1', command: show, worktree: true, prompt: false },
          { name: 'w2', command: show, worktree: true, prompt: false },
        ],
      }),
    );
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    expect(start.stdout).toContain('on macs/w1');
    const root = realpathSync(home);
    for (const name of ['w1', 'w2']) {
      const agent = readSessionFile(home)?.agents.find((a) => a.name === name);
      const tree = path.join(root, '.macs', 'worktrees', name);
      expect(agent?.worktree).toEqual({
        path: path.join(home, '.macs', 'worktrees', name),
        branch: `macs/${name}`,
      });
      const current = await waitFor(
        async () =>
          (
            await tmuxOn(
              socket,
              'display-message',
              '-p',
              '-t',
              agent?.pane ?? '',
              '#{pane_current_path}',
            )
          )?.trim(),
        { message: 'pane path' },
      );
      expect(realpathSync(current)).toBe(tree);
      await waitFor(
        async () =>
          (
            await tmuxOn(socket, 'capture-pane', '-p', '-t', agent?.pane ?? '')
          )?.includes(`macs/${name}`),
        { message: `${name} shows its branch` },
      );
      expect(
        execFileSync('git', ['branch', '--show-current'], {
          cwd: tree,
          encoding: 'utf8',
        }).trim(),
      ).toBe(`macs/${name}`);
    }
    await stopAndCheckNothingLeft([]);
    const again = await macs(['start', '--detach']);
    expect(again.exitCode, again.stderr + again.stdout).toBe(0);
    expect(again.stdout).toContain('on macs/w2');
    await stopAndCheckNothingLeft(await pidsOfSession());
  });

  describe('errors a newcomer meets', () => {
    it('tmux missing: exit 3 and how to install it', async () => {
      const run = await macs(['start', '--demo', '--detach'], {
        env: { MACS_TMUX: '/nonexistent' },
      });
      expect(run.exitCode).toBe(3);
      expect(run.stderr).toMatch(/tmux not found/);
      expect(run.stderr).toContain('apt-get install -y tmux');
      expect(await isServerUp(socket)).toBe(false);
    });

    it('not on a terminal: starts detached and says how to attach; a second start says attach or stop (exit 1)', async () => {
      const run = await macs(['start', '--worker', 'sleep 600']);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toContain('not on a terminal');
      expect(run.stdout).toMatch(/attach/);
      expect(await tmuxOn(socket, 'has-session', '-t', '=macs')).toBeDefined();

      const again = await macs(['start', '--worker', 'sleep 600', '--detach']);
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toContain('already running');
      expect(again.stderr).toMatch(/attach/);
      expect(again.stderr).toMatch(/stop/);

      const attach = await macs(['attach']);
      expect(attach.exitCode).toBe(1);
      expect(attach.stderr).toContain('not on a terminal');
      expect(attach.stderr).toContain(`tmux -L ${socket} attach`);
      await stopAndCheckNothingLeft(await pidsOfSession());
      const nothing = await macs(['stop']);
      expect(nothing.exitCode).toBe(0);
      expect(nothing.stdout).toContain('no macs session is running');
    });

    it('an agent program not found: its pane says so and its state is dead with exit code 127', async () => {
      const missing = `no-such-agent-${socket.slice(-8)}`;
      const run = await macs([
        'start',
        '--detach',
        '--worker',
        `${missing} --model x`,
        '--worker',
        'sleep 600',
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toContain(`'${missing}' was not found on PATH`);
      await explain(
        waitFor(() => readStateFile(home, 'worker-1')?.exitCode !== undefined, {
          timeout: 15_000,
          message: 'worker-1 dead',
        }),
      );
      expect(readStateFile(home, 'worker-1')?.exitCode).toBe(127);
      const pane = readSessionFile(home)?.agents[0]?.pane ?? '';
      const screen =
        (await tmuxOn(socket, 'capture-pane', '-p', '-S', '-', '-t', pane)) ??
        '';
      expect(screen).toContain(`${missing}: command not found`);
      expect(screen).toContain('Pane is dead (status 127');
      // The other worker is supervised and alive.
      expect(eventsOf('bridge.started').map((e) => e.agent)).toContain(
        'worker-2',
      );
      expect(readStateFile(home, 'worker-2')?.state).not.toBe('dead');
      await stopAndCheckNothingLeft(await pidsOfSession());
    });

    it('gives a claude-preset worker its own hook settings on its command line, leaving the repo untouched', async () => {
      // A stand-in for claude that records the arguments it was started with.
      const out = path.join(home, 'argv.json');
      const stand = path.join(home, 'stand-in.cjs');
      writeFileSync(
        stand,
        // Written then renamed, so the test never reads it half-written.
        `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(`${out}.tmp`)}, JSON.stringify(process.argv.slice(2))); fs.renameSync(${JSON.stringify(`${out}.tmp`)}, ${JSON.stringify(out)}); setInterval(() => {}, 1e6);\n`,
      );
      writeFileSync(
        path.join(home, 'macs.config.json'),
        JSON.stringify({
          workers: [
            {
              name: 'worker-1',
              preset: 'claude',
              command: [process.execPath, stand],
            },
          ],
        }),
      );
      const run = await macs(['start', '--detach', '--no-wait']);
      expect(run.exitCode, run.stderr).toBe(0);
      await explain(
        waitFor(() => existsSync(out), {
          timeout: 15_000,
          message: 'the worker recorded its arguments',
        }),
      );
      const argv = JSON.parse(readFileSync(out, 'utf8')) as string[];
      const settings = path.join(
        realpathSync(home),
        '.macs',
        'settings',
        'worker-1.claude.json',
      );
      expect(argv.slice(-2)[0]).toBe('--settings');
      expect(realpathSync(argv.at(-1) ?? '')).toBe(settings);
      const hooks = (
        JSON.parse(readFileSync(settings, 'utf8')) as {
          hooks: Record<string, unknown>;
        }
      ).hooks;
      expect(Object.keys(hooks)).toEqual(
        expect.arrayContaining([
          'SessionStart',
          'UserPromptSubmit',
          'Stop',
          'PreToolUse',
        ]),
      );
      expect(existsSync(path.join(home, '.claude'))).toBe(false);
      await stopAndCheckNothingLeft(await pidsOfSession());
    });

    it('no workers: exit 2 with what to do', async () => {
      const run = await macs(['start', '--detach']);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain('no workers');
      expect(run.stderr).toContain('--demo');
    });
  });

  it('pane discovery: `macs bridge --agent` without a pane finds the tagged pane; `macs target` pins another', async () => {
    await tmuxOn(
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'other',
      'sleep',
      '600',
    );
    const tagged = (
      (await tmuxOn(
        socket,
        'new-window',
        '-d',
        '-P',
        '-F',
        '#{pane_id}',
        'sleep',
        '600',
      )) ?? ''
    ).trim();
    const other = (
      (await tmuxOn(
        socket,
        'new-window',
        '-d',
        '-P',
        '-F',
        '#{pane_id}',
        'sleep',
        '600',
      )) ?? ''
    ).trim();
    await tmuxOn(
      socket,
      'set-option',
      '-p',
      '-t',
      tagged,
      '@macs_agent',
      'solo',
    );
    const found = await macs(['target', 'solo']);
    expect(found.exitCode, found.stderr).toBe(0);
    expect(found.stdout).toContain(
      `${tagged} on tmux -L ${socket} (found by rule: tag)`,
    );
    const pinned = await macs(['target', 'solo', other]);
    expect(pinned.exitCode, pinned.stderr).toBe(0);
    expect((await macs(['target', 'solo'])).stdout).toContain(
      `${other} on tmux -L ${socket} (found by rule: pinned)`,
    );
    expect((await macs(['target', 'solo', '--clear'])).exitCode).toBe(0);
    // Two panes tagged with one name: an error that lists both.
    await tmuxOn(
      socket,
      'set-option',
      '-p',
      '-t',
      other,
      '@macs_agent',
      'solo',
    );
    const ambiguous = await macs(['bridge', '--agent', 'solo']);
    expect(ambiguous.exitCode).toBe(1);
    expect(ambiguous.stderr).toContain(tagged);
    expect(ambiguous.stderr).toContain(other);
    expect(ambiguous.stderr).toContain('macs target solo');
  });
});
