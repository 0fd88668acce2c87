// Issue 24, "Conversations that survive", with the real agents: each of
// Claude Code, Codex CLI and Gemini CLI runs a turn through macs against its
// scripted model server; then the session's private tmux server is killed
// (the reboot: agents, bridge and panes gone, `.macs/session.json` left),
// `macs start --resume` brings the session back, and a new prompt is typed.
// The model server must receive, in the resumed agent's first model call,
// the earlier conversation's messages: the agent continued its
// conversation, with the id it reported itself (never read off a screen).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findEvents, readAllEvents, runMacs } from '../helpers/macs.js';
import {
  cleanUpSession,
  processesMentioning,
  readSessionFile,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { startClaudeSession, type ClaudeSession } from './claude-session.js';
import { codexTestEnv, writeCodexSourceHome } from './codex-home.js';
import { geminiEnv } from './gemini-env.js';
import { agent } from './pins.js';
import { lastUserText, type Script } from './servers/anthropic.js';
import {
  contentText,
  lastUserContent,
  startGeminiApiServer,
  type GeminiApiServer,
} from './servers/gemini-api.js';
import {
  startResponsesServer,
  userTexts,
  type RecordedRequest,
  type ResponsesServer,
} from './servers/openai-responses.js';

const WORKER = 'worker-1';
const FIRST = 'Remember the code word PELICAN-7 for later.';
const REPLY = 'Noted: the code word is PELICAN-7.';
const SECOND = 'Now say the code word I gave you.';

/** Kill the session's tmux server, as a reboot would, and wait until it is gone. */
async function reboot(socket: string): Promise<void> {
  await tmuxOn(socket, 'kill-server');
  await waitFor(
    async () => (await tmuxOn(socket, 'list-sessions')) === undefined,
    { message: 'the tmux server gone' },
  );
}

/** The worker's pane in the session as recorded now. */
function workerPane(home: string): string {
  const pane = readSessionFile(home)?.agents.find(
    (a) => a.name === WORKER,
  )?.pane;
  if (!pane) throw new Error('no pane recorded for the worker');
  return pane;
}

/** What went on, for a failed wait. */
async function explain(home: string, socket: string): Promise<string> {
  const pane = readSessionFile(home)?.agents[0]?.pane ?? '';
  const screen = (await tmuxOn(socket, 'capture-pane', '-p', '-t', pane)) ?? '';
  const events = readAllEvents(home)
    .slice(-25)
    .map((e) => `${e.agent} ${e.type} ${JSON.stringify(e.data ?? {})}`);
  return `--- screen:\n${screen}\n--- events:\n${events.join('\n')}`;
}

async function explained<T>(
  wait: Promise<T>,
  home: string,
  socket: string,
): Promise<T> {
  try {
    return await wait;
  } catch (error) {
    throw new Error(
      `${(error as Error).message}\n${await explain(home, socket)}`,
    );
  }
}

/** The conversation id macs recorded for the worker (from the agent's own report). */
function recordedConversation(home: string): string | undefined {
  try {
    return (
      JSON.parse(
        readFileSync(
          path.join(home, '.macs', 'conversations', `${WORKER}.json`),
          'utf8',
        ),
      ) as { id?: string }
    ).id;
  } catch {
    return undefined;
  }
}

/** `macs start --resume`, which must say the worker continues `id`. */
async function resume(home: string, socket: string, id: string): Promise<void> {
  const resumed = await runMacs(['start', '--resume', '--detach'], {
    home,
    socket,
    timeoutMs: 120_000,
  });
  expect(resumed.exitCode, resumed.stderr + resumed.stdout).toBe(0);
  expect(resumed.stdout).toContain(`continues its conversation ${id}`);
  expect(findEvents(home, 'agent.resumed').at(-1)?.data).toMatchObject({
    outcome: 'resumed',
    conversation: id,
  });
}

/** Type a prompt into the worker's pane once its composer shows `ready`. */
/** The worker's pane as a person sees it. */
async function workerScreen(home: string, socket: string): Promise<string> {
  return (
    (await tmuxOn(socket, 'capture-pane', '-p', '-t', workerPane(home))) ?? ''
  );
}

async function typePrompt(
  home: string,
  socket: string,
  ready: RegExp,
  text: string,
): Promise<void> {
  const pane = workerPane(home);
  const screen = () => workerScreen(home, socket);
  await explained(
    waitFor(async () => ready.test(await screen()), {
      timeout: 120_000,
      interval: 250,
      message: `the composer (${String(ready)})`,
    }),
    home,
    socket,
  );
  await tmuxOn(socket, 'send-keys', '-t', pane, '-l', text);
  await explained(
    waitFor(async () => (await screen()).includes(text), {
      timeout: 30_000,
      message: `"${text}" in the composer`,
    }),
    home,
    socket,
  );
  await tmuxOn(socket, 'send-keys', '-t', pane, 'Enter');
}

describe('conversations survive a reboot with the real agents (issue 24)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const clean of cleanups.splice(0).reverse()) await clean();
  });

  it(`Claude Code ${agent('claude').version} continues its conversation after macs start --resume`, async () => {
    const script: Script = (request) =>
      lastUserText(request).includes('PELICAN-7')
        ? { kind: 'text', text: REPLY }
        : { kind: 'text', text: 'It was PELICAN-7.' };
    const session: ClaudeSession = await startClaudeSession(script);
    cleanups.push(() => session.stop());
    const { home, socket, server } = session;
    await typePrompt(home, socket, /\? for shortcuts/, FIRST);
    await explained(
      waitFor(
        () => server.conversation().some((r) => lastUserText(r) === FIRST),
        { timeout: 60_000, message: 'the first turn at the model' },
      ),
      home,
      socket,
    );
    // The turn ended (its Stop hook), so Claude has saved the conversation
    // before the "reboot". The state alone could still read the `idle` of
    // SessionStart when the model call came in, before the prompt's hook
    // was taken: killed mid-turn, Claude had nothing to resume ("No
    // conversation found"), seen on a loaded machine.
    await explained(
      waitFor(() => findEvents(home, 'hook.Stop').length > 0, {
        timeout: 60_000,
        message: 'the first turn ended (its Stop hook)',
      }),
      home,
      socket,
    );
    await session.waitState('idle', 'idle after the first turn');
    const id = recordedConversation(home);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const before = server.conversation().length;

    await reboot(socket);
    await resume(home, socket, id ?? '');
    await typePrompt(home, socket, /\? for shortcuts/, SECOND);
    const first = await explained(
      waitFor(() => server.conversation()[before], {
        timeout: 90_000,
        message: "the resumed agent's first model call",
      }),
      home,
      socket,
    );
    // The earlier conversation, then the new prompt.
    const messages = JSON.stringify(first.body.messages);
    expect(messages).toContain(FIRST);
    expect(messages).toContain(REPLY);
    expect(lastUserText(first)).toBe(SECOND);
    expect(recordedConversation(home)).toBe(id);
  });

  it(`Codex CLI ${agent('codex').version} continues its thread after macs start --resume`, async () => {
    const { home: temp, cleanup } = makeTempHome('macs-codex-resume-');
    const home = temp;
    const socket = testSocket();
    const own = (r: RecordedRequest) =>
      !String(r.headers['x-codex-turn-metadata'] ?? '').includes(
        '"thread_source":"thread_title"',
      );
    const last = (r: RecordedRequest) => userTexts(r).at(-1) ?? '';
    const server: ResponsesServer = await startResponsesServer({
      turns: [
        { when: (r) => own(r) && last(r) === FIRST, text: REPLY },
        { when: (r) => own(r) && last(r) === SECOND, text: 'PELICAN-7.' },
      ],
      fallback: { text: 'Code word' },
    });
    cleanups.push(async () => {
      await runMacs(['stop', '--grace-sec', '1'], { home, socket });
      await cleanUpSession(home, socket);
      await server.close();
      cleanup();
    });
    const source = writeCodexSourceHome({
      dir: path.join(home, 'user-codex-home'),
      baseUrl: server.baseUrl,
      trusted: [home],
    });
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        workers: [
          {
            name: WORKER,
            preset: 'codex',
            command: [agent('codex').bin],
            env: codexTestEnv(source),
          },
        ],
      }),
    );
    const start = await runMacs(['start', '--detach'], {
      home,
      socket,
      timeoutMs: 120_000,
    });
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    const ready = /Ask Codex to do anything|›/;
    await typePrompt(home, socket, ready, FIRST);
    // Codex's notify names the thread once the turn is over.
    await explained(
      waitFor(() => recordedConversation(home) !== undefined, {
        timeout: 120_000,
        message: 'the thread recorded from the notify hook',
      }),
      home,
      socket,
    );
    const id = recordedConversation(home) ?? '';
    const ownTurns = () =>
      server.requests.filter(
        (r) => r.method === 'POST' && own(r) && userTexts(r).length > 0,
      ) ?? [];
    const before = ownTurns().length;

    // A reboot also ends Codex's background server, which runs in a
    // session of its own (no hang-up reaches it).
    await reboot(socket);
    const codexHome = path.join(home, '.macs', 'codex', WORKER);
    for (const line of processesMentioning(codexHome)) {
      const pid = Number(line.split(/\s+/, 1)[0]);
      if (pid > 0) execFileSync('kill', ['-9', String(pid)]);
    }
    await resume(home, socket, id);
    await typePrompt(home, socket, ready, SECOND);
    const first = await explained(
      waitFor(() => ownTurns()[before], {
        timeout: 120_000,
        message: "the resumed agent's first model call",
      }),
      home,
      socket,
    );
    const texts = userTexts(first);
    expect(texts).toContain(FIRST);
    expect(JSON.stringify(first.body?.input)).toContain(REPLY);
    expect(texts.at(-1)).toBe(SECOND);
  });

  it(`Gemini CLI ${agent('gemini').version} continues its session after macs start --resume`, async () => {
    const { home: temp, cleanup } = makeTempHome('macs-gemini-resume-');
    const home = temp;
    const socket = testSocket();
    const server: GeminiApiServer = await startGeminiApiServer({
      turns: [{ text: REPLY }, { text: 'It was PELICAN-7.' }],
    });
    cleanups.push(async () => {
      await runMacs(['stop', '--grace-sec', '1'], { home, socket });
      await cleanUpSession(home, socket);
      await server.close();
      cleanup();
    });
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        workers: [
          {
            name: WORKER,
            preset: 'gemini',
            command: [agent('gemini').bin],
            env: geminiEnv(path.join(home, 'gemini-home'), server.url),
            prompt: false,
          },
        ],
      }),
    );
    const start = await runMacs(['start', '--detach'], {
      home,
      socket,
      timeoutMs: 120_000,
    });
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    // macs named the new session itself (Gemini CLI has no hooks here).
    const id = recordedConversation(home) ?? '';
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const ready = /Type your message/;
    await typePrompt(home, socket, ready, FIRST);
    await explained(
      waitFor(
        async () =>
          server.pending() === 1 &&
          (await workerScreen(home, socket)).includes('PELICAN-7.'),
        { timeout: 90_000, message: "the model's reply on screen" },
      ),
      home,
      socket,
    );
    const before = server.chats().length;

    await reboot(socket);
    await resume(home, socket, id);
    // Once the earlier conversation shows again, through `macs send`: a
    // resumed Gemini CLI can drop an Enter pressed just after the text (a
    // bare `send-keys` left the prompt in its composer on a loaded CI
    // machine); macs presses the key again until the composer lets go.
    const resumedScreen = /Noted: the code word[\s\S]*Type your message/;
    await explained(
      waitFor(
        async () => resumedScreen.test(await workerScreen(home, socket)),
        { timeout: 120_000, interval: 250, message: 'the resumed screen' },
      ),
      home,
      socket,
    );
    const sent = await runMacs(['send', WORKER, SECOND], {
      home,
      socket,
      timeoutMs: 120_000,
    });
    expect(sent.exitCode, sent.stderr + sent.stdout).toBe(0);
    const first = await explained(
      waitFor(() => server.chats()[before], {
        timeout: 90_000,
        message: "the resumed agent's first model call",
      }),
      home,
      socket,
    );
    const contents = JSON.stringify(first.body?.contents);
    expect(contents).toContain(FIRST);
    expect(contents).toContain(REPLY);
    expect(contentText(lastUserContent(first))).toContain(SECOND);
  });
});
