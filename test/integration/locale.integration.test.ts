// Issue 25, point 2: under a locale that is not UTF-8 (LANG=C, or none at
// all: cron, systemd units, `env -i`, the MCP SDK's default child
// environment) tmux 3.3a prints every character outside printable ASCII as
// `_`, the unit separator of macs's `-F` formats included: no pane line
// parsed, so `macs send` said "no pane found", a session started under
// `env -i` had a bridge that never saw a request, and `read_screen` said the
// agent "has no pane any more". macs now runs every tmux client with `-u`
// (tmux/run.ts, tmux/control.ts), and a line it cannot read is an error
// about the reading, never about the pane. Strategy: a real private tmux
// server, and each reader (the one-shot runner, the control-mode client,
// `macs send`, `macs start`'s bridge, `macs mcp`) run with LANG=C and with
// an environment holding nothing but PATH; every format macs parses is read
// back and checked field by field.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createTmuxClient, type TmuxClient } from '../../src/tmux/client.js';
import { listClients } from '../../src/tmux/clients.js';
import { createControlChannel } from '../../src/tmux/control.js';
import { createRunTmux } from '../../src/tmux/run.js';
import {
  buildReapNudgeArgs,
  parsePaneExit,
  PANE_EXIT_FORMAT,
} from '../../src/tmux/session-args.js';
import { useTmuxHarness } from '../helpers/harness.js';
import {
  FAKE_AGENT,
  MACS_BIN,
  readRecord,
  REQ,
  waitForEvents,
  type MacsRun,
} from '../helpers/macs.js';
import { isServerUp, testSocket, cleanUpSession } from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

const execFileAsync = promisify(execFile);

/** The environments a reader is tried in: nothing but PATH, plus LANG=C or not. */
const LOCALES: [string, Record<string, string>][] = [
  ['LANG=C', { LANG: 'C' }],
  ['no locale variables', {}],
];

function bareEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra };
}

/** `macs ARGS` with exactly `env` (as `env -i PATH=… macs …`). */
async function macsIn(
  env: Record<string, string>,
  args: string[],
  cwd: string,
): Promise<MacsRun> {
  try {
    const { stdout, stderr } = await execFileAsync(
      process.execPath,
      [MACS_BIN, ...args],
      { env, cwd, timeout: 60_000 },
    );
    return { exitCode: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return {
      exitCode: typeof e.code === 'number' ? e.code : 1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? '',
    };
  }
}

describe.each(LOCALES)('tmux read under %s (issue 25, point 2)', (_, vars) => {
  const harness = useTmuxHarness({ gracefulStop: true });
  const env = () => bareEnv(vars);

  /** A pane titled with letters outside ASCII, printing some too. */
  async function startTitledPane(): Promise<string> {
    const pane = await harness.server.spawnPane([
      'sh',
      '-c',
      "printf 'héllo wörld\\tend\\n'; exec sleep 600",
    ]);
    await harness.server.tmux('select-pane', '-t', pane, '-T', 'tâche-1');
    await harness.tagAgent(pane, 'worker-1');
    await waitFor(
      async () => (await harness.server.capture(pane)).includes('end'),
      {
        message: 'the pane printed',
      },
    );
    return pane;
  }

  async function checkClient(tmux: TmuxClient, pane: string): Promise<void> {
    const info = await tmux.paneInfo(pane);
    expect(info).toMatchObject({
      id: pane,
      dead: false,
      title: 'tâche-1',
      agentTag: 'worker-1',
      currentCommand: 'sleep',
      sessionName: 'test',
    });
    expect(info.pid).toBeGreaterThan(0);
    const listed = (await tmux.listPanes()).find((p) => p.id === pane);
    expect(listed).toMatchObject({ title: 'tâche-1', agentTag: 'worker-1' });
    expect(await tmux.capturePane(pane)).toContain('héllo wörld');

    const dead = await harness.server.spawnPane(['sh', '-c', 'exit 3']);
    await waitFor(
      async () =>
        // tmux 3.3a may reap a dead pane late (buildReapNudgeArgs).
        (await tmux.command(buildReapNudgeArgs())) !== undefined &&
        parsePaneExit(
          await tmux.command([
            'display-message',
            '-p',
            '-t',
            dead,
            PANE_EXIT_FORMAT,
          ]),
        ).exitCode === 3,
      { message: 'the exit status of a dead pane reads as 3' },
    );
  }

  it('the one-shot runner reads every pane format', async () => {
    const pane = await startTitledPane();
    const tmux = createTmuxClient(
      harness.server.socket,
      createRunTmux({ env: env() }),
    );
    await checkClient(tmux, pane);
  });

  it('the control-mode client reads every pane format, and list-clients knows itself for a control client', async () => {
    const pane = await startTitledPane();
    const control = createControlChannel({
      socket: harness.server.socket,
      env: env(),
    });
    const tmux = createTmuxClient(
      harness.server.socket,
      createRunTmux({ env: env() }),
      { control },
    );
    onTestFinished(() => tmux.close());
    await checkClient(tmux, pane);
    // The control client is attached now: it is the only client, and a
    // control one, so none is listed.
    expect(await listClients(tmux)).toEqual([]);
  });

  it('macs send finds the pane and types', async () => {
    const { pane, record } = await harness.startWorker([{ wait: 'submit' }]);
    await harness.tagAgent(pane, 'worker-1');
    const sent = await macsIn(
      env(),
      [
        'send',
        'worker-1',
        'hello from C',
        '--home',
        harness.home,
        '--tmux-socket',
        harness.server.socket,
      ],
      harness.home,
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(readRecord(record).filter((r) => r.type === 'submit')).toEqual([
      expect.objectContaining({ text: 'hello from C' }),
    ]);
  });

  it("macs mcp's read_screen and send_message find the agent", async () => {
    const { pane, record } = await harness.startWorker([
      { print: 'screen-text-ä' },
      { wait: 'submit' },
    ]);
    await harness.tagAgent(pane, 'worker-1');
    // The agent as the tools know it: supervised by a bridge.
    harness.startBridge(['--worker-pane', pane, '--agent', 'worker-1']);
    await waitForEvents(harness.home, 'bridge.started', { timeout: 20_000 });
    await waitFor(
      async () => (await harness.server.capture(pane)).includes('screen-text'),
      { message: 'the worker printed' },
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        MACS_BIN,
        'mcp',
        '--home',
        harness.home,
        '--tmux-socket',
        harness.server.socket,
      ],
      env: env(),
      cwd: harness.home,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'macs-test', version: '0.0.0' });
    await client.connect(transport);
    onTestFinished(() => client.close());
    type Result = { isError?: boolean; content: { text?: string }[] };
    const text = (r: Result) => r.content.map((c) => c.text ?? '').join('\n');
    const screen = (await client.callTool({
      name: 'read_screen',
      arguments: { agent: 'worker-1' },
    })) as Result;
    expect(screen.isError, text(screen)).toBeFalsy();
    expect(text(screen)).toContain('screen-text-ä');
    const sent = (await client.callTool(
      { name: 'send_message', arguments: { agent: 'worker-1', text: 'hi' } },
      undefined,
      { timeout: 60_000 },
    )) as Result;
    expect(sent.isError, text(sent)).toBeFalsy();
    expect(readRecord(record).filter((r) => r.type === 'submit')).toEqual([
      expect.objectContaining({ text: 'hi' }),
    ]);
  });
});

describe.each(LOCALES)(
  'a session started under %s (issue 25, point 2)',
  (_, vars) => {
    it('has a bridge that sees the worker and its request', async () => {
      const { home, cleanup } = makeTempHome();
      const socket = testSocket();
      onTestFinished(async () => {
        await cleanUpSession(home, socket);
        cleanup();
      });
      const script = path.join(home, 'worker.json');
      writeFileSync(
        script,
        JSON.stringify([
          { wait: 'submit' },
          { print: REQ('c1', 'Read under the C locale?') },
          { wait: 'submit' },
        ]),
      );
      writeFileSync(
        path.join(home, 'macs.config.json'),
        JSON.stringify({
          workers: [
            {
              name: 'worker-1',
              preset: 'generic',
              command: [process.execPath, FAKE_AGENT, '--script', script],
            },
          ],
        }),
      );
      const env = bareEnv(vars);
      const start = await macsIn(
        env,
        ['start', '--detach', '--tmux-socket', socket],
        home,
      );
      expect(start.exitCode, start.stderr + start.stdout).toBe(0);
      expect(await isServerUp(socket)).toBe(true);
      await waitForEvents(home, 'request.routed', {
        requestId: 'worker-1-c1',
        timeout: 30_000,
      });
      const stop = await macsIn(
        env,
        ['stop', '--grace-sec', '1', '--tmux-socket', socket],
        home,
      );
      expect(stop.exitCode, stop.stderr).toBe(0);
    });
  },
);
