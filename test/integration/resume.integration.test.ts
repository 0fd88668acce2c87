// Issue 24 ("Conversations that survive") and issue 25 point 4: a session
// comes back after a reboot. The reboot is the session's private tmux
// server killed (`tmux -L <socket> kill-server`): every agent and the
// bridge die with it, `.macs/session.json` stays. `macs start --resume`
// must bring each agent back in a pane of its own, continuing its
// conversation where its program can; requests that were open expire and
// are listed, never typed into the resumed agent. Agents are the fake agent
// (no conversation to continue) and the fake Claude Code
// (test/fixtures/fake-hook-agent.mjs), which reports its session id through
// the real `macs hook` and resumes with `--resume <id>` as Claude Code does.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_AGENT,
  FAKE_HOOK_AGENT,
  findEvents,
  readRecord,
  REQ,
  runMacs,
  waitForEvents,
} from '../helpers/macs.js';
import {
  cleanUpSession,
  readSessionFile,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

interface Status {
  session: {
    status: string;
    id: string;
    resumed?: {
      from: string | null;
      agents: { name: string; outcome: string; why: string | null }[];
    };
  };
  agents: { name: string; state: string; pane: string | null }[];
}

describe('macs start --resume after a reboot (issues 24 and 25)', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-resume-'));
    socket = testSocket();
  });
  afterEach(async () => {
    await cleanUpSession(home, socket);
    cleanup();
  });

  const macs = (args: string[]) =>
    runMacs(args, { home, socket, timeoutMs: 60_000 });
  const file = (...parts: string[]) => path.join(home, ...parts);
  const reboot = async () => {
    await tmuxOn(socket, 'kill-server');
    await waitFor(
      async () => (await tmuxOn(socket, 'list-sessions')) === undefined,
      {
        message: 'the tmux server gone',
      },
    );
    // A reboot leaves no process: the old bridge, which lost its terminal
    // with the server, must be gone too (its lock would refuse the resume).
    const stateDir = path.join(home, '.macs', 'state');
    const lockPids = () =>
      (existsSync(stateDir) ? readdirSync(stateDir) : [])
        .filter((f) => f.endsWith('.lock'))
        .map((f) =>
          Number.parseInt(readFileSync(path.join(stateDir, f), 'utf8'), 10),
        )
        .filter((pid) => Number.isInteger(pid) && pid > 0);
    await waitFor(
      () =>
        lockPids().every((pid) => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true;
          }
        }),
      { timeout: 30_000, message: 'the old bridge gone with the server' },
    );
  };
  const paneCommand = async (pane: string) =>
    (
      await tmuxOn(
        socket,
        'display-message',
        '-p',
        '-t',
        pane,
        '#{pane_dead} #{@macs_agent}',
      )
    )?.trim();
  const status = async () =>
    JSON.parse((await macs(['status', '--json'])).stdout) as Status;

  it('brings back a session started with --worker flags, expiring its open request without typing it into the resumed agent (issue 25 point 4)', async () => {
    // The bug: `macs start --resume` planned the agents from the config,
    // which a `--worker` session does not have: "nothing to start: no
    // workers are configured", exit 2. The strategy: start two flag
    // workers, one of which asks a question, kill the server, resume, and
    // check both run again in tagged panes and the question expired.
    const steps = (name: string, first: unknown[]) => {
      const script = file(`${name}.steps.json`);
      writeFileSync(script, JSON.stringify([...first, { busy: 600_000 }]));
      return script;
    };
    const worker = (name: string, first: unknown[]) =>
      `${process.execPath} ${FAKE_AGENT} --script ${steps(name, first)} --record ${file(`${name}.record.jsonl`)}`;
    const started = await macs([
      'start',
      '--detach',
      '--worker',
      worker('worker-1', [{ print: REQ('q1', 'asked before the reboot') }]),
      '--worker',
      worker('worker-2', []),
    ]);
    expect(started.exitCode, started.stderr + started.stdout).toBe(0);
    const before = readSessionFile(home) as { id: string } | undefined;
    await waitForEvents(home, 'request.routed', {
      requestId: 'worker-1-q1',
      timeout: 30_000,
    });
    await reboot();

    const resumed = await macs(['start', '--resume', '--detach']);
    expect(resumed.exitCode, resumed.stderr + resumed.stdout).toBe(0);
    expect(resumed.stdout).toContain(`resumed session ${before?.id}`);
    expect(resumed.stdout).toMatch(/worker-1 .*started fresh/);
    expect(resumed.stdout).toMatch(/worker-2 .*started fresh/);
    // The open request is listed as expired, as at any new start.
    expect(resumed.stderr).toContain(
      '1 request(s) of an earlier session expired',
    );
    expect(resumed.stderr).toContain('worker-1-q1');

    const after = readSessionFile(home) as
      (ReturnType<typeof readSessionFile> & { id: string }) | undefined;
    expect(after?.id).not.toBe(before?.id);
    expect(after?.agents.map((a) => a.name)).toEqual(['worker-1', 'worker-2']);
    for (const agent of after?.agents ?? [])
      expect(await paneCommand(agent.pane)).toBe(`0 ${agent.name}`);
    // Each program runs again, in its new pane.
    for (const agent of after?.agents ?? [])
      await waitFor(
        async () =>
          (
            await tmuxOn(
              socket,
              'display-message',
              '-p',
              '-t',
              agent.pane,
              '#{pane_current_command}',
            )
          )?.trim() === 'node',
        { message: `${agent.name} runs again` },
      );
    // The bridge supervises the new session, and the status says what came back.
    await waitForEvents(home, 'bridge.started', { timeout: 30_000 });
    const shown = await status();
    expect(shown.session.id).toBe(after?.id);
    expect(shown.session.resumed).toEqual({
      from: before?.id,
      agents: [
        expect.objectContaining({ name: 'worker-1', outcome: 'fresh' }),
        expect.objectContaining({ name: 'worker-2', outcome: 'fresh' }),
      ],
    });
    expect((await macs(['status'])).stdout).toContain(
      `resumed from ${before?.id}`,
    );
    const [expired] = findEvents(home, 'request.expired', 'worker-1-q1');
    expect(expired).toBeDefined();
    // The expired question is never typed into the resumed worker.
    expect(
      readRecord(file('worker-1.record.jsonl')).filter(
        (e) => e.type === 'submit',
      ),
    ).toEqual([]);
    expect(
      findEvents(home, 'agent.resumed')
        .map((e) => e.agent)
        .sort(),
    ).toEqual(['worker-1', 'worker-2']);
  });

  it("continues a hooked agent's conversation after a reboot and at restart, and starts it anew with --fresh", async () => {
    const transcripts = file('transcripts');
    mkdirSync(transcripts);
    const record = file('claude.record.jsonl');
    const script = file('claude.steps.json');
    writeFileSync(script, JSON.stringify([]));
    writeFileSync(
      file('macs.config.json'),
      JSON.stringify({
        workers: [
          {
            name: 'worker-1',
            preset: 'claude',
            prompt: false,
            command: [
              process.execPath,
              FAKE_HOOK_AGENT,
              '--script',
              script,
              '--record',
              record,
              '--transcripts',
              transcripts,
            ],
          },
        ],
      }),
    );
    const started = await macs(['start', '--detach']);
    expect(started.exitCode, started.stderr + started.stdout).toBe(0);
    const starts = () =>
      readRecord(record).filter((e) => e.type === 'start') as unknown as {
        argv: string[];
        session: string;
      }[];
    await waitFor(() => starts().length === 1, {
      message: 'the fake Claude started',
    });
    const first = starts()[0]?.session ?? '';
    // The agent's hooks report its conversation; macs records it.
    const conversation = file('.macs', 'conversations', 'worker-1.json');
    await waitFor(
      () =>
        existsSync(conversation) &&
        (JSON.parse(readFileSync(conversation, 'utf8')) as { id: string })
          .id === first,
      { message: 'the conversation recorded from the SessionStart hook' },
    );
    await waitForEvents(home, 'conversation.recorded', { timeout: 20_000 });
    // A turn, so the conversation has a transcript to continue.
    await waitForEvents(home, 'bridge.started', { timeout: 30_000 });
    const sent = await macs(['send', 'worker-1', 'remember the number 42']);
    expect(sent.exitCode, sent.stderr).toBe(0);
    await waitFor(() => existsSync(path.join(transcripts, `${first}.jsonl`)), {
      message: 'the transcript',
    });

    await reboot();
    const resumed = await macs(['start', '--resume', '--detach']);
    expect(resumed.exitCode, resumed.stderr + resumed.stdout).toBe(0);
    expect(resumed.stdout).toContain(`continues its conversation ${first}`);
    await waitFor(() => starts().length === 2, { message: 'started again' });
    expect(starts()[1]?.argv.slice(-2)).toEqual(['--resume', first]);
    expect(starts()[1]?.session).toBe(first);
    // The recorded launch stays as it was: the resume arguments are added each time.
    const entry = (
      readSessionFile(home) as unknown as {
        agents: { launch: { argv: string[] } }[];
      }
    ).agents[0];
    expect(entry?.launch.argv).not.toContain('--resume');

    // restart continues it too...
    const restarted = await macs(['restart', 'worker-1']);
    expect(restarted.exitCode, restarted.stderr).toBe(0);
    expect(restarted.stdout).toContain(`continuing its conversation ${first}`);
    await waitFor(() => starts().length === 3, { message: 'restarted' });
    expect(starts()[2]?.argv.slice(-2)).toEqual(['--resume', first]);

    // ...and --fresh starts a new one, whose id the hooks report anew.
    const fresh = await macs(['restart', 'worker-1', '--fresh']);
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain('started fresh');
    await waitFor(() => starts().length === 4, { message: 'restarted fresh' });
    expect(starts()[3]?.argv).not.toContain('--resume');
    const second = starts()[3]?.session;
    expect(second).not.toBe(first);
    await waitFor(
      () =>
        existsSync(conversation) &&
        (JSON.parse(readFileSync(conversation, 'utf8')) as { id: string })
          .id === second,
      { message: 'the new conversation recorded' },
    );
    // Its conversation has no transcript yet: a restart says so and starts fresh.
    const again = await macs(['restart', 'worker-1']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      /started fresh: Claude Code's transcript .* is gone/,
    );
  });

  it('types the worker protocol again at restart only into a new conversation (--fresh), never into one that continues (issue 24 point 3)', async () => {
    // Bug: a worker told the protocol by its first message got it typed
    // again by `macs restart`, which continues its conversation (that
    // already holds it): the bridge took every new program in the pane for
    // one never told. Strategy: the fake Claude Code with `prompt: true`
    // (its first message typed, its transcript kept so it can be resumed);
    // a restart must keep the message (`agent.prompt-kept`, nothing typed
    // but what we send), a `--fresh` restart must type it again.
    const transcripts = file('transcripts');
    mkdirSync(transcripts);
    const record = file('claude.record.jsonl');
    const script = file('claude.steps.json');
    writeFileSync(script, JSON.stringify([]));
    writeFileSync(
      file('macs.config.json'),
      JSON.stringify({
        workers: [
          {
            name: 'worker-1',
            preset: 'claude',
            prompt: true,
            command: [
              process.execPath,
              FAKE_HOOK_AGENT,
              '--script',
              script,
              '--record',
              record,
              '--transcripts',
              transcripts,
            ],
          },
        ],
      }),
    );
    const started = await macs(['start', '--detach']);
    expect(started.exitCode, started.stderr + started.stdout).toBe(0);
    const inputs = () =>
      readRecord(record).filter(
        (e) => e.type === 'start' || e.type === 'submit',
      );
    const protocolAfter = (starts: number) => {
      let seen = 0;
      return inputs().filter((e) => {
        if (e.type === 'start') seen += 1;
        return (
          seen === starts &&
          e.type === 'submit' &&
          (e.text ?? '').includes('Working under macs')
        );
      }).length;
    };
    const startCount = () => inputs().filter((e) => e.type === 'start').length;
    await waitFor(() => protocolAfter(1) === 1, {
      timeout: 30_000,
      message: 'the protocol typed as the first message',
    });
    await waitForEvents(home, 'agent.prompted', { timeout: 20_000 });

    const restarted = await macs(['restart', 'worker-1']);
    expect(restarted.exitCode, restarted.stderr).toBe(0);
    expect(restarted.stdout).toContain('continuing its conversation');
    await waitFor(() => startCount() === 2, { message: 'restarted' });
    await waitForEvents(home, 'agent.prompt-kept', {
      timeout: 20_000,
      message:
        'the bridge keeping the first message of the continued conversation',
    });
    const sent = await macs(['send', 'worker-1', 'after the restart']);
    expect(sent.exitCode, sent.stderr).toBe(0);
    await waitFor(() => inputs().some((e) => e.text === 'after the restart'), {
      message: 'our message typed',
    });
    expect(protocolAfter(2)).toBe(0);
    expect(findEvents(home, 'agent.prompted')).toHaveLength(1);

    const fresh = await macs(['restart', 'worker-1', '--fresh']);
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain('started fresh');
    await waitFor(() => startCount() === 3, { message: 'restarted fresh' });
    await waitFor(() => protocolAfter(3) === 1, {
      timeout: 30_000,
      message: 'the protocol typed into the new conversation',
    });
    await waitForEvents(home, 'agent.prompted', { count: 2, timeout: 20_000 });
    // Still typed into the second program: never.
    expect(protocolAfter(2)).toBe(0);

    // A program a person started again by hand (respawn-pane: the same
    // command, a new conversation) is not one macs restart continued: it
    // is told the protocol.
    const pane = (
      readSessionFile(home) as unknown as { agents: { pane: string }[] }
    ).agents[0]?.pane;
    expect(pane).toBeDefined();
    await tmuxOn(socket, 'respawn-pane', '-k', '-t', pane ?? '');
    await waitFor(() => startCount() === 4, { message: 'respawned by hand' });
    await waitFor(() => protocolAfter(4) === 1, {
      timeout: 30_000,
      message: 'the protocol typed into the respawned program',
    });
  });

  it('runs the demo again when its server is gone', async () => {
    const started = await macs(['start', '--demo', '--detach', '--no-wait']);
    expect(started.exitCode, started.stderr + started.stdout).toBe(0);
    const before = readSessionFile(home) as { id: string } | undefined;
    await reboot();
    const resumed = await macs(['start', '--resume', '--detach', '--no-wait']);
    expect(resumed.exitCode, resumed.stderr + resumed.stdout).toBe(0);
    expect(resumed.stderr).toContain('the demo starts again');
    const after = readSessionFile(home) as
      (ReturnType<typeof readSessionFile> & { id: string }) | undefined;
    expect(after?.id).not.toBe(before?.id);
    expect(after?.agents.map((a) => a.name).sort()).toEqual([
      'controller',
      'worker-1',
    ]);
  });

  it('says there is nothing to resume when no session was recorded, and takes no other agents', async () => {
    const result = await macs(['start', '--resume', '--detach']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('there is no session to resume');
    // --resume brings back the recorded agents: it takes no others.
    const mixed = await macs(['start', '--resume', '--worker', 'bash']);
    expect(mixed.exitCode).toBe(2);
    expect(mixed.stderr).toContain('leave out --worker');
  });
});
