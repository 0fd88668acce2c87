// The real Gemini CLI (pinned, test/agents/pins.ts) run through macs as a
// user runs it: `macs start` with a Gemini worker (preset `gemini`) on a
// private tmux server, the model being our scripted API server on
// 127.0.0.1. One session walks through every state a worker shows: a person
// types the task, the model asks a question in a request block, the answer
// goes back as the next user message, a shell command opens the CLI's real
// confirmation dialog (answered with keys, as a person would), a second
// request, an API failure, and the exit.
//
// The worker protocol is not sent as a first message (`prompt: false`):
// under load Gemini CLI takes the Enter after that long paste for a newline
// of the paste (its paste protection), the text stays in its composer as
// `[Pasted Text: 28 lines]`, and the deliverer cannot tell (docs/agents.md,
// Gemini CLI, known quirks).
//
// MACS_SAVE_SCREENS=1 writes each state's real screen into
// test/fixtures/screens/gemini/<state>/ (the conformance corpus).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPreset } from '../../src/config/presets/index.js';
import { classifyScreen } from '../../src/screen/classify.js';
import {
  findEvents,
  readAllEvents,
  REPO_ROOT,
  REQ,
  runMacs,
  waitForEvents,
} from '../helpers/macs.js';
import {
  cleanUpSession,
  readSessionFile,
  readStateFile,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { GEMINI_MODEL, geminiEnv } from './gemini-env.js';
import { agent } from './pins.js';
import {
  contentText,
  lastUserContent,
  startGeminiApiServer,
  type GeminiApiServer,
} from './servers/gemini-api.js';

const GEMINI_PRESET = getPreset('gemini');

const GEMINI = agent('gemini');
const WORKER = 'worker-1';
const Q1 = 'Should the cache use sqlite or redis?';
const Q2 = 'The folder is made. May I drop the old cache table too?';
const FAILURE = 'scripted internal failure';
const TASK = 'Set up the cache for the shop.';

describe(`Gemini CLI ${GEMINI.version} as a macs worker`, () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let server: GeminiApiServer;
  let pane = '';

  const macs = (args: string[]) =>
    runMacs(args, { home, socket, timeoutMs: 120_000 });
  const state = () => readStateFile(home, WORKER)?.state;
  const screen = async () =>
    (await tmuxOn(socket, 'capture-pane', '-p', '-t', pane)) ?? '';

  /** Keep a real screen of a state for the conformance corpus (on request). */
  function saveScreen(stateName: string, name: string, text: string): void {
    if (process.env.MACS_SAVE_SCREENS !== '1') return;
    const dir = path.join(REPO_ROOT, 'test/fixtures/screens/gemini', stateName);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `gemini-${GEMINI.version}-${name}.txt`), text);
  }

  /** Wait until the bridge reads the worker as `want`; returns that screen. */
  async function waitForState(want: string, what: string): Promise<string> {
    let last = '';
    try {
      await waitFor(
        async () => {
          last = await screen();
          return state() === want;
        },
        { timeout: 90_000, interval: 200, message: what },
      );
    } catch (error) {
      const events = readAllEvents(home)
        .slice(-15)
        .map((e) => `${e.agent} ${e.type} ${JSON.stringify(e.data ?? {})}`);
      throw new Error(
        `${(error as Error).message} (state ${String(state())})\n--- screen:\n${last}\n--- events:\n${events.join('\n')}`,
      );
    }
    return screen();
  }

  /** The text of the user's message in the n-th chat request (0-based). */
  const userText = (n: number) =>
    contentText(lastUserContent(server.chats()[n]));

  beforeAll(async () => {
    ({ home, cleanup } = makeTempHome('macs-gemini-'));
    socket = testSocket();
    server = await startGeminiApiServer({
      turns: [
        // 1: the task the person types → a question.
        {
          text: [
            'I have read the protocol.\n',
            REQ('q-1', Q1, ' type=question'),
          ],
        },
        // 2: the answer → a shell command, held back a moment so the
        // working screen can be seen, then the confirmation dialog.
        {
          functionCall: {
            name: 'run_shell_command',
            args: {
              command: 'mkdir cache-db',
              description: 'Make the cache folder',
            },
          },
          delayMs: 8_000,
        },
        // 3: the command's result → a request for approval.
        { text: `Done.\n${REQ('q-2', Q2, ' type=approval')}` },
        // 4: the answer → the API refuses the call (400 is not retried).
        { error: { status: 400, message: FAILURE } },
      ],
    });
    const geminiHome = path.join(home, 'gemini-home');
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        workers: [
          {
            name: WORKER,
            preset: 'gemini',
            command: [GEMINI.bin],
            env: geminiEnv(geminiHome, server.url),
            prompt: false,
          },
        ],
      }),
    );
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    pane =
      readSessionFile(home)?.agents.find((a) => a.name === WORKER)?.pane ?? '';
    expect(pane).toMatch(/^%\d+$/);
  });

  afterAll(async () => {
    await cleanUpSession(home, socket);
    await server?.close();
    cleanup();
  });

  it('a request block printed by Gemini is detected once, with its exact body', async () => {
    // Gemini is up: its composer is read as idle. A person types the task.
    await waitForState('idle', 'gemini started');
    await tmuxOn(socket, 'send-keys', '-t', pane, '-l', TASK);
    await waitFor(async () => (await screen()).includes(TASK), {
      timeout: 30_000,
      message: 'the task in the composer',
    });
    await tmuxOn(socket, 'send-keys', '-t', pane, 'Enter');
    const id = `${WORKER}-q-1`;
    await waitFor(() => findEvents(home, 'request.detected', id).length > 0, {
      timeout: 90_000,
      interval: 200,
      message: 'q-1 detected',
    });
    expect(userText(0)).toContain(TASK);
    expect(server.chats()[0]?.model).toBe(GEMINI_MODEL);
    expect(server.chats()[0]?.apiKey).toBe('dummy-key-for-tests');
    const idle = await waitForState('idle', 'idle after q-1');
    saveScreen('idle', 'request-block-printed', idle);
    expect(findEvents(home, 'request.detected', id)).toHaveLength(1);
    expect(
      readFileSync(path.join(home, 'inbox', `${id}.txt`), 'utf8'),
    ).toContain(Q1);
    const meta = JSON.parse(
      readFileSync(path.join(home, 'inbox', `${id}.json`), 'utf8'),
    ) as { body?: string; type?: string };
    expect(meta.type).toBe('question');
    if (meta.body !== undefined) expect(meta.body).toBe(Q1);
  }, 480_000);

  it('an answer is delivered and the model sees it as the next user message; the turn is seen working', async () => {
    const answer = await macs(['respond', `${WORKER}-q-1`, 'Use sqlite.']);
    expect(answer.exitCode, answer.stderr).toBe(0);
    await waitFor(
      () => findEvents(home, 'request.delivered', `${WORKER}-q-1`).length > 0,
      { timeout: 60_000, message: 'q-1 delivered' },
    );
    await waitFor(() => server.chats().length >= 2, {
      timeout: 60_000,
      message: 'the answer reached the model',
    });
    expect(userText(1)).toBe('Use sqlite.');
    // The model holds its answer back: Gemini shows its loading line.
    const working = await waitForState(
      'working',
      'working while the model answers',
    );
    saveScreen('working', 'waiting-for-model', working);
    expect(classifyScreen(working, GEMINI_PRESET).state).toBe('working');
  });

  it("the CLI's confirmation dialog is seen as approval and answered with keys", async () => {
    const dialog = await waitForState(
      'approval',
      'approval for the shell command',
    );
    saveScreen('approval', 'run-shell-command-confirmation', dialog);
    expect(dialog).toContain('mkdir cache-db');
    expect(dialog).toMatch(/Allow once/);
    // A person picks the first option ("Allow once") with Enter.
    await tmuxOn(socket, 'send-keys', '-t', pane, 'Enter');
    await waitFor(
      () => findEvents(home, 'request.detected', `${WORKER}-q-2`).length > 0,
      { timeout: 90_000, interval: 200, message: 'q-2 detected' },
    );
    expect(existsSync(path.join(home, 'cache-db'))).toBe(true);
    // The command's result went back as a function response.
    const parts = lastUserContent(server.chats()[2])?.parts ?? [];
    expect(parts.some((p) => 'functionResponse' in p)).toBe(true);
    const idle = await waitForState('idle', 'idle after q-2');
    saveScreen('idle', 'after-shell-command', idle);
  });

  it('an API failure is seen as error, with its message on the screen', async () => {
    const answer = await macs(['respond', `${WORKER}-q-2`, 'No, keep it.']);
    expect(answer.exitCode, answer.stderr).toBe(0);
    await waitFor(() => server.chats().length >= 4, {
      timeout: 60_000,
      message: 'the answer reached the model',
    });
    expect(userText(3)).toBe('No, keep it.');
    const failed = await waitForState('error', 'error after the API failure');
    saveScreen('error', 'api-error-400', failed);
    expect(failed).toContain(FAILURE);
    expect(classifyScreen(failed, GEMINI_PRESET).state).toBe('error');
  });

  it("the agent's exit is seen as dead", async () => {
    // A person types /quit, sees it in the composer (with its completion
    // `quit  Exit the cli`), and presses Enter; again if the CLI took the
    // key for part of the typing (it reads a key that comes with the text
    // as part of it).
    await tmuxOn(socket, 'send-keys', '-t', pane, '-l', '/quit');
    await waitFor(async () => /^\s*>\s*\/quit\s*$/m.test(await screen()), {
      timeout: 30_000,
      message: '/quit in the composer',
    });
    let pressedAt = 0;
    await waitFor(
      async () => {
        if (state() === 'dead') return true;
        if (
          Date.now() - pressedAt > 5_000 &&
          /^\s*>\s*\/quit\s*$/m.test(await screen())
        ) {
          await tmuxOn(socket, 'send-keys', '-t', pane, 'Enter');
          pressedAt = Date.now();
        }
        return false;
      },
      { timeout: 90_000, interval: 250, message: 'dead after /quit' },
    );
    // The state is read dead by the agent's own reading; the exit event
    // follows from the bridge's health check (every 2 s once all agents run).
    const exited = await waitForEvents(home, 'agent.exited', {
      timeout: 30_000,
      message: 'agent.exited after dead',
    });
    expect(exited.map((e) => e.agent)).toEqual([WORKER]);
    // Every model call went to our server with the dummy key.
    expect(
      server.requests.every((r) => r.apiKey === 'dummy-key-for-tests'),
    ).toBe(true);
  });
});
