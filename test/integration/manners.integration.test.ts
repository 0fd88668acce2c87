// Refusals a running session owes a person (issue 29, "Manners"), on a real
// session of two fake agents on a private tmux server (MACS_TMUX_SOCKET).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_AGENT, findEvents, runMacs } from '../helpers/macs.js';
import {
  cleanUpSession,
  isAlive,
  readSessionFile,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

describe('a running session refuses what would break it', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  const panes: Record<string, string> = {};
  /** The session's bridge (`macs bridge --all` in its window). */
  let bridgePid = 0;

  const macs = (args: string[], timeoutMs?: number) =>
    runMacs(args, {
      home,
      socket,
      ...(timeoutMs ? { timeoutMs } : {}),
    });
  const lockPid = (agent: string): number =>
    Number.parseInt(
      readFileSync(path.join(home, '.macs', 'state', `${agent}.lock`), 'utf8'),
      10,
    );

  beforeAll(async () => {
    ({ home, cleanup } = makeTempHome('macs-manners-'));
    socket = testSocket();
    const worker = (name: string) => ({
      name,
      preset: 'generic',
      prompt: false,
      command: [
        process.execPath,
        FAKE_AGENT,
        '--script-json',
        JSON.stringify([{ wait: 'submit' }]),
      ],
    });
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({ workers: [worker('worker-1'), worker('worker-2')] }),
    );
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    for (const agent of readSessionFile(home)?.agents ?? [])
      panes[agent.name] = agent.pane;
    // The bridge supervises both: each agent's lock names its pid.
    await waitFor(
      () =>
        ['worker-1', 'worker-2'].every((agent) =>
          findEvents(home, 'bridge.started').some((e) => e.agent === agent),
        ),
      { timeout: 60_000, message: 'the session bridge supervising both' },
    );
    bridgePid = lockPid('worker-1');
    expect(lockPid('worker-2')).toBe(bridgePid);
  });

  afterAll(async () => {
    await cleanUpSession(home, socket);
    cleanup();
  });

  // Bug (issue 29): a second `macs bridge --all` on a running session waited
  // forever, retrying the locks the session's bridge holds, and said nothing
  // useful. Strategy: with the session's bridge running (its pid in each
  // agent's lock), a second one must end by itself, non-zero, naming that
  // pid, as `macs start` refuses a session already running; the session's
  // bridge keeps its locks. The run's timeout is only a guard against the
  // old hang (the test then fails on its exit code).
  it('a second `macs bridge --all` is refused with the running bridge’s pid', async () => {
    const second = await macs(['bridge', '--all'], 60_000);
    expect(second.exitCode, second.stderr + second.stdout).toBe(1);
    expect(second.stderr).toMatch(/already running/);
    expect(second.stderr).toContain(`pid ${bridgePid}`);
    expect(second.stderr).toMatch(/hint: /);
    expect(lockPid('worker-1')).toBe(bridgePid);
    expect(lockPid('worker-2')).toBe(bridgePid);
  });

  // The refusal spares the session's own bridge window: `macs start
  // --resume` starts a new bridge there while the old one lets go of the
  // locks, and the new one must take them over, not refuse. (The old one
  // mostly lets go before the new one looks, so this guards the resume as
  // a whole more than that race.)
  it('`macs start --resume` still restarts the session’s bridge', async () => {
    const resume = await macs(['start', '--resume', '--detach']);
    expect(resume.exitCode, resume.stderr + resume.stdout).toBe(0);
    const fresh = await waitFor(
      () => {
        const pids = ['worker-1', 'worker-2'].map(lockPid);
        return pids.every((p) => p !== bridgePid && isAlive(p)) &&
          pids[0] === pids[1]
          ? pids[0]
          : undefined;
      },
      { timeout: 60_000, message: 'the new bridge holding both locks' },
    );
    expect(fresh).not.toBe(bridgePid);
    bridgePid = fresh;
  });

  // Bug (issue 29): `macs target worker-1 %N` pinned worker-1 to worker-2's
  // pane without a word, although a pane tagged for one agent is never taken
  // by another (SPEC §5), so every bridge would then refuse the pin.
  // Strategy: pin worker-1 to worker-2's pane (tagged @macs_agent=worker-2):
  // refused, nothing pinned; with the tag removed, the session record still
  // says whose pane it is; worker-1's own pane and an untagged pane of no
  // agent are pinned as before.
  it("`macs target` refuses another agent's pane", async () => {
    const pinsFile = path.join(home, '.macs', 'targets.json');
    const pins = () => {
      try {
        return JSON.parse(readFileSync(pinsFile, 'utf8')) as Record<
          string,
          unknown
        >;
      } catch {
        return {};
      }
    };
    const other = panes['worker-2'] ?? '';
    const tagged = await macs(['target', 'worker-1', other]);
    expect(tagged.exitCode).toBe(1);
    expect(tagged.stderr).toContain(
      `pane ${other} belongs to agent 'worker-2' (@macs_agent=worker-2)`,
    );
    expect(tagged.stderr).toMatch(/hint: .*macs target worker-1 %N/);
    expect(pins()['worker-1']).toBeUndefined();

    await tmuxOn(socket, 'set-option', '-p', '-u', '-t', other, '@macs_agent');
    const recorded = await macs(['target', 'worker-1', other]);
    expect(recorded.exitCode).toBe(1);
    expect(recorded.stderr).toContain(
      `belongs to agent 'worker-2' (the session record)`,
    );
    expect(pins()['worker-1']).toBeUndefined();
    await tmuxOn(
      socket,
      'set-option',
      '-p',
      '-t',
      other,
      '@macs_agent',
      'worker-2',
    );

    const own = await macs(['target', 'worker-1', panes['worker-1'] ?? '']);
    expect(own.exitCode, own.stderr).toBe(0);
    const spare = (
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
    const free = await macs(['target', 'worker-1', spare]);
    expect(free.exitCode, free.stderr).toBe(0);
    expect(pins()['worker-1']).toMatchObject({ pane: spare });
    expect((await macs(['target', 'worker-1', '--clear'])).exitCode).toBe(0);
  });
});
