// The real Codex CLI (the pinned version) run through macs as a user runs
// it: `macs start` with a Codex worker (preset codex, notify installed by
// macs start) on a private tmux server, the model being our scripted
// Responses server on 127.0.0.1 (test/agents/servers/openai-responses.ts).
//
// Screens of each state are written to test/fixtures/screens/codex/<state>/
// when MACS_UPDATE_SCREENS=1 (otherwise to a temp folder, and checked).
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getPreset } from '../../src/config/presets/index.js';
import { classifyScreen } from '../../src/screen/classify.js';
import {
  findEvents,
  runMacs,
  startBridge,
  waitForEvents,
  readAllEvents,
} from '../helpers/macs.js';
import {
  cleanUpSession,
  isServerUp,
  processesMentioning,
  readSessionFile,
  readStateFile,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { codexTestEnv, writeCodexSourceHome } from './codex-home.js';
import { agent, ROOT } from './pins.js';
import {
  startResponsesServer,
  toolOutputs,
  userTexts,
  type RecordedRequest,
  type ResponsesServer,
} from './servers/openai-responses.js';

const CODEX = agent('codex');
const PRESET = getPreset('codex');
const SCREENS = path.join(ROOT, 'test', 'fixtures', 'screens', 'codex');

/** The request the person's own thread makes (not Codex's title thread). */
const userThread = (r: RecordedRequest) =>
  !String(r.headers['x-codex-turn-metadata'] ?? '').includes(
    '"thread_source":"thread_title"',
  );
const lastUserText = (r: RecordedRequest) => userTexts(r).at(-1) ?? '';

describe(`Codex CLI ${CODEX.version} through macs`, () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let server: ResponsesServer;
  let shots: string;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-codex-'));
    socket = testSocket();
    shots =
      process.env.MACS_UPDATE_SCREENS === '1'
        ? SCREENS
        : path.join(home, 'screens');
  });

  afterEach(async () => {
    await server?.close();
    await cleanUpSession(home, socket);
    cleanup();
  });

  const macs = (args: string[], timeoutMs = 60_000) =>
    runMacs(args, { home, socket, timeoutMs });

  /** Start a session with one Codex worker whose Codex home is built from `source`. */
  async function startCodex(source: string): Promise<string> {
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        backend: 'file',
        workers: [
          {
            name: 'worker-1',
            preset: 'codex',
            command: [CODEX.bin],
            env: codexTestEnv(source),
          },
        ],
      }),
    );
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    const pane = readSessionFile(home)?.agents[0]?.pane;
    expect(pane).toMatch(/^%\d+$/);
    return pane as string;
  }

  const screen = async (pane: string) =>
    (await tmuxOn(socket, 'capture-pane', '-p', '-t', pane)) ?? '';
  const stateOf = () => readStateFile(home, 'worker-1')?.state;

  /** Wait for a state; save the screen that shows it (checked against the preset). */
  async function reachState(
    pane: string,
    state: string,
    name: string,
    timeout = 60_000,
  ): Promise<string> {
    let shown = '';
    await waitFor(
      async () => {
        if (stateOf() !== state) return false;
        shown = await screen(pane);
        return classifyScreen(shown, PRESET).state === state;
      },
      {
        timeout,
        message: `worker-1 ${state} (state file: ${String(stateOf())})`,
      },
    ).catch(async (error: unknown) => {
      throw new Error(
        `${(error as Error).message}\n--- screen:\n${await screen(pane)}`,
      );
    });
    const dir = path.join(shots, state);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${name}-${CODEX.version}.txt`), shown);
    return shown;
  }

  async function waitIdleComposer(pane: string): Promise<void> {
    await waitFor(
      async () =>
        stateOf() === 'idle' &&
        /Ask Codex to do anything/.test(await screen(pane)),
      { timeout: 120_000, message: `Codex idle at its composer` },
    );
  }

  it('a request is detected once, answered, confirmed and read by the model; a real approval dialog is answered with keys; an API failure is an error; /quit is dead; macs stop leaves no Codex process', async () => {
    const work = home;
    const body = 'Which database should the cache use?\nPostgres or SQLite?';
    server = await startResponsesServer({
      turns: [
        {
          when: (r) => userThread(r) && lastUserText(r) === 'Start the task.',
          text: `I need a decision first.\n<<CONTROLLER_REQUEST id=q-1 type=question>>\n${body}\n<<CONTROLLER_REQUEST_END>>`,
          holdUntil: 'first-turn',
        },
        {
          when: (r) => userThread(r) && lastUserText(r) === 'Use SQLite.',
          text: 'Using SQLite. I will create the cache file.',
          shell: {
            command: `touch ${path.join(work, 'cache.sqlite')}`,
            escalate: true,
            justification: 'Create the cache database file.',
          },
        },
        {
          when: (r) => userThread(r) && toolOutputs(r).length > 0,
          text: 'Created cache.sqlite.',
        },
        {
          when: (r) => userThread(r) && lastUserText(r) === 'Break now.',
          error: {
            status: 400,
            message: 'The scripted model refuses this request',
          },
        },
      ],
      fallback: { text: 'Cache setup' },
    });
    const source = writeCodexSourceHome({
      dir: path.join(home, 'user-codex-home'),
      baseUrl: server.baseUrl,
      trusted: [work],
    });
    const pane = await startCodex(source);

    // Notify comes from config.toml of the agent's own Codex home: no
    // command-line settings, so Codex runs its shared background server
    // (embedded mode would start none).
    const codexHome = path.join(home, '.macs', 'codex', 'worker-1');
    expect(readFileSync(path.join(codexHome, 'config.toml'), 'utf8')).toMatch(
      /^notify = \[.*"hook", "notify", "--agent", "worker-1"/m,
    );
    const argv = readSessionFile(home)?.agents[0];
    expect(JSON.stringify(argv)).not.toContain('notify=');
    await waitIdleComposer(pane);
    await reachState(pane, 'idle', 'composer-after-start');

    // The startup warnings overlay (f2) reads unknown; macs types nothing
    // into it (a `k` there would keep a warning and go to the next).
    // The footer names the warnings once Codex has them; f2 opens them
    // (pressed again, as a person would, if the first press came too early).
    await waitFor(async () => /f2 to view/.test(await screen(pane)), {
      timeout: 60_000,
      message: 'the warnings hint in the footer',
    });
    await waitFor(
      async () => {
        if (/Warnings · 1 of/.test(await screen(pane))) return true;
        await tmuxOn(socket, 'send-keys', '-t', pane, 'F2');
        return false;
      },
      { timeout: 30_000, interval: 1000, message: 'the warnings overlay' },
    );
    const overlay = await screen(pane);
    expect(classifyScreen(overlay, PRESET).state).toBe('unknown');
    mkdirSync(path.join(shots, 'unknown'), { recursive: true });
    writeFileSync(
      path.join(shots, 'unknown', `warnings-overlay-${CODEX.version}.txt`),
      overlay,
    );
    const typed = await macs(['send', 'worker-1', 'k', '--timeout', '10']);
    expect(typed.exitCode).not.toBe(0);
    expect(await screen(pane)).toMatch(/Warnings · 1 of/);
    await tmuxOn(socket, 'send-keys', '-t', pane, 'Escape');
    await waitIdleComposer(pane);
    await waitFor(
      () =>
        processesMentioning(codexHome).some((l) => l.includes('app-server')),
      {
        timeout: 30_000,
        message: `Codex's background server runs: ${processesMentioning('codex').join('\n')}`,
      },
    );

    // The person gives the task; the model thinks (held), then asks.
    const sent = await macs(['send', 'worker-1', 'Start the task.']);
    expect(sent.exitCode, sent.stderr).toBe(0);
    await reachState(pane, 'working', 'turn-running');
    server.release('first-turn');
    const detected = await waitForEvents(home, 'request.detected', {
      timeout: 60_000,
    });
    expect(detected).toHaveLength(1);
    const id = detected[0]?.requestId as string;
    expect(id).toBe('worker-1-q-1');
    await waitFor(() => existsSync(path.join(home, 'inbox', `${id}.json`)), {
      timeout: 30_000,
      message: 'the request is in the inbox',
    });
    expect(readFileSync(path.join(home, 'inbox', `${id}.txt`), 'utf8')).toBe(
      body,
    );
    await waitIdleComposer(pane);
    // Codex notified twice (its own thread, and the thread naming the
    // task): only its own thread's turn counts.
    await waitFor(
      () =>
        findEvents(home, 'hook.notify').some((e) => e.data?.auxiliary) &&
        findEvents(home, 'hook.notify').some((e) => !e.data?.auxiliary),
      { timeout: 30_000, message: 'both notify calls recorded' },
    );

    // The answer is typed back, confirmed, and is the model's next input.
    const respond = await macs(['respond', id, 'Use SQLite.']);
    expect(respond.exitCode, respond.stderr).toBe(0);
    await waitForEvents(home, 'request.delivered', {
      requestId: id,
      timeout: 60_000,
    });
    await waitForEvents(home, 'request.confirmed', {
      requestId: id,
      timeout: 60_000,
    });
    await waitFor(() => server.usedTurns() >= 2, {
      timeout: 60_000,
      message: 'the model got the answer',
    });
    const second = server
      .turnRequests()
      .find((r) => lastUserText(r) === 'Use SQLite.');
    expect(second, 'the answer was the next user input').toBeDefined();

    // The model asks to run a command outside the sandbox: Codex's own
    // approval dialog. macs sees approval and raises it as a screen
    // approval; `macs respond <id> allow` presses Enter on the dialog after
    // reading it again, and types nothing (issue 13, part 3).
    const dialog = await reachState(pane, 'approval', 'run-command-dialog');
    expect(dialog).toMatch(/cache\.sqlite/);
    const asked = await waitFor(
      () =>
        readAllEvents(home).find(
          (e) => e.type === 'request.detected' && e.data?.origin === 'screen',
        ),
      { timeout: 60_000, message: 'the dialog raised as an approval' },
    );
    const approvalId = asked.requestId ?? '';
    await waitFor(
      () => existsSync(path.join(home, 'inbox', `${approvalId}.txt`)),
      { timeout: 30_000, message: 'the approval in the inbox' },
    );
    expect(
      readFileSync(path.join(home, 'inbox', `${approvalId}.txt`), 'utf8'),
    ).toMatch(
      /Would you like to run the following command\?[\s\S]*cache\.sqlite/,
    );
    const allow = await macs(['respond', approvalId, 'allow']);
    expect(allow.exitCode, allow.stderr).toBe(0);
    const [pressed] = await waitForEvents(home, 'request.delivered', {
      requestId: approvalId,
      timeout: 60_000,
    });
    expect(pressed?.data).toMatchObject({
      method: 'dialog-keys',
      keys: ['Enter'],
      decision: 'allow',
      decidedBy: 'person',
    });
    await waitFor(() => existsSync(path.join(work, 'cache.sqlite')), {
      timeout: 60_000,
      message: 'the approved command ran',
    });
    await waitFor(() => server.usedTurns() >= 3, {
      timeout: 60_000,
      message: 'the tool output went back to the model',
    });
    await waitIdleComposer(pane);

    // An API failure: Codex shows it; macs reads error with its message.
    const broke = await macs(['send', 'worker-1', 'Break now.']);
    expect(broke.exitCode, broke.stderr).toBe(0);
    const failed = await reachState(pane, 'error', 'api-error-400');
    expect(failed).toContain('The scripted model refuses this request');

    // The person quits Codex: dead. As a person does: type /quit, see it in
    // the composer, press Enter; again if Codex took the key as part of the
    // typing (a key that comes with fast input can be read as pasted text).
    await tmuxOn(socket, 'send-keys', '-t', pane, '-l', '/quit');
    await waitFor(async () => /\/quit/.test(await screen(pane)), {
      timeout: 30_000,
      message: '/quit in the composer',
    });
    let pressedAt = 0;
    await waitFor(
      async () => {
        if (stateOf() === 'dead') return true;
        if (
          Date.now() - pressedAt > 5_000 &&
          /\/quit/.test(await screen(pane))
        ) {
          await tmuxOn(socket, 'send-keys', '-t', pane, 'Enter');
          pressedAt = Date.now();
        }
        return false;
      },
      {
        timeout: 60_000,
        interval: 250,
        message: `worker-1 dead (state ${String(stateOf())})`,
      },
    ).catch(async (error: unknown) => {
      throw new Error(
        `${(error as Error).message}\n--- screen:\n${await screen(pane)}`,
      );
    });

    // macs stop: nothing of the session's Codex is left, daemons included.
    const stop = await macs(['stop', '--grace-sec', '2']);
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(await isServerUp(socket)).toBe(false);
    await waitFor(() => processesMentioning(home).length === 0, {
      timeout: 15_000,
      message: `no process of the session: ${processesMentioning(home).join('\n')}`,
    });
    // Only the agent's own thread made turns; no request left our server.
    // (and the dialog's approval, from the screen).
    const detectedAll = readAllEvents(home).filter(
      (e) => e.type === 'request.detected',
    );
    expect(detectedAll.map((e) => e.data?.origin ?? 'worker')).toEqual([
      'worker',
      'screen',
    ]);
  });

  // Issue 24: the first-run sign-in menu read unknown, so nobody was
  // called. It waits for a person's choice: approval (an `attention` event),
  // and nothing is typed into it.
  it('the sign-in menu of a Codex with no provider reads approval, calls a person and is never typed into', async () => {
    server = await startResponsesServer({});
    const source = writeCodexSourceHome({
      dir: path.join(home, 'user-codex-home'),
      trusted: [home],
    });
    const pane = await startCodex(source);
    await waitFor(async () => /Sign in with/.test(await screen(pane)), {
      timeout: 120_000,
      message: 'the sign-in menu',
    });
    const before = await reachState(pane, 'approval', 'sign-in-menu');
    expect(classifyScreen(before, PRESET).rule).toBe('approval:choice-menu');
    const called = await waitForEvents(home, 'attention', { timeout: 30_000 });
    expect(called.map((e) => e.data?.reason)).toContain('approval');
    // "2" then Enter would pick the device-code sign-in: macs must not type.
    const sent = await macs(['send', 'worker-1', '2', '--timeout', '15']);
    expect(sent.exitCode).not.toBe(0);
    const after = await screen(pane);
    expect(after).toMatch(/^>\s*1\. Sign in with ChatGPT/m);
    expect(server.requests).toEqual([]);
  });

  // Issue 24: Codex run from a shell stopped at once on a configuration
  // error; the bridge had never seen it run, read the shell prompt as idle
  // and would have typed into the shell. Strategy: a real shell pane, the
  // real Codex with a bad config.toml, then a bridge on that pane.
  it('a Codex that stopped on a configuration error, its shell prompt back, is dead and never typed into', async () => {
    server = await startResponsesServer({});
    const codexHome = path.join(home, 'bad-codex-home');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      path.join(codexHome, 'config.toml'),
      'approval_policy = "sometimes"\n',
    );
    await tmuxOn(
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-x',
      '120',
      '-y',
      '40',
      '-c',
      home,
      `env -i PATH=${path.dirname(CODEX.bin)}:${path.dirname(process.execPath)}:/usr/bin:/bin HOME=${home} TERM=xterm-256color PS1='dev@box:\\w\\$ ' bash --norc --noprofile`,
    );
    const pane = (
      await tmuxOn(socket, 'display-message', '-p', '#{pane_id}')
    )?.trim() as string;
    await tmuxOn(
      socket,
      'send-keys',
      '-t',
      pane,
      '-l',
      `CODEX_HOME=${codexHome} ${CODEX.bin}`,
    );
    await tmuxOn(socket, 'send-keys', '-t', pane, 'Enter');
    await waitFor(
      async () =>
        /unknown variant `sometimes`[\s\S]*[$#]\s*$/.test(await screen(pane)),
      { timeout: 60_000, message: 'the configuration error, then the prompt' },
    ).catch(async (error: unknown) => {
      throw new Error(
        `${(error as Error).message}\n--- screen:\n${await screen(pane)}`,
      );
    });
    const shown = await screen(pane);
    expect(classifyScreen(shown, PRESET)).toMatchObject({
      state: 'error',
      rule: 'error:exited-to-shell',
    });
    const bridge = startBridge(
      [
        '--worker-pane',
        pane,
        '--agent',
        'worker-1',
        '--preset',
        'codex',
        '--quiet',
      ],
      { home, socket },
    );
    try {
      await waitFor(() => stateOf() === 'dead', {
        timeout: 30_000,
        message: `worker-1 dead (state ${String(stateOf())})\n${bridge.output()}`,
      });
      expect(readStateFile(home, 'worker-1')?.lastLines).toContain(
        'in `approval_policy`',
      );
      const sent = await macs(['send', 'worker-1', 'hello', '--timeout', '5']);
      expect(sent.exitCode).not.toBe(0);
      expect(await screen(pane)).not.toContain('hello');
    } finally {
      bridge.child.kill('SIGTERM');
      await bridge.exited;
    }
  });
});
