// Tokens and cost per agent (docs/usage.md) with the real agents: each of
// Claude Code, Codex and Gemini CLI runs through `macs start` against its
// scripted model server, which reports known, different usage figures in
// each answer. What macs shows (`macs status --json` agents[].usage and
// `macs usage --json`) must equal the sum of what the server sent: macs
// reads the figures from the agent's own records (transcript, rollout,
// session file), never from the screen.
//
// The agents' side calls (a title, a next-speaker check) are not in their
// records (docs/usage.md); the servers report zero usage for them, so the
// sum over every request the server answered is the sum macs must show.
//
// MACS_SAVE_USAGE_SAMPLES=1 copies each agent's record into
// test/fixtures/usage/<agent>/ (the samples of the readers' unit tests).
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findEvents, REPO_ROOT, REQ, runMacs } from '../helpers/macs.js';
import {
  cleanUpSession,
  readSessionFile,
  readStateFile,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  isConversation,
  isToolResult,
  lastUserText,
  type ModelRequest,
  type Usage,
} from './servers/anthropic.js';
import {
  startClaudeSession,
  submitPrompt,
  WORKER,
  type ClaudeSession,
} from './claude-session.js';
import { codexTestEnv, writeCodexSourceHome } from './codex-home.js';
import { GEMINI_MODEL, geminiEnv } from './gemini-env.js';
import { agent } from './pins.js';
import {
  startResponsesServer,
  type RecordedRequest as CodexRequest,
  type ResponsesServer,
} from './servers/openai-responses.js';
import {
  startGeminiApiServer,
  type GeminiApiServer,
  type RecordedRequest as GeminiRequest,
} from './servers/gemini-api.js';

interface Shown {
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  costUsd: number | null;
}

/** Every `*.jsonl` file under a folder (the agent's records). */
function jsonlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => file.endsWith('.jsonl') && statSync(file).isFile());
}

function saveSamples(agentName: string, files: string[]): void {
  if (process.env.MACS_SAVE_USAGE_SAMPLES !== '1') return;
  const dir = path.join(REPO_ROOT, 'test', 'fixtures', 'usage', agentName);
  mkdirSync(dir, { recursive: true });
  for (const file of files)
    copyFileSync(file, path.join(dir, path.basename(file)));
}

async function statusUsage(
  home: string,
  socket: string,
): Promise<Shown | null | undefined> {
  const run = await runMacs(['status', '--json'], {
    home,
    socket,
    timeoutMs: 30_000,
  });
  if (run.exitCode !== 0) return undefined;
  const snapshot = JSON.parse(run.stdout) as {
    agents: { name: string; usage?: Shown | null }[];
  };
  return snapshot.agents.find((a) => a.name === WORKER)?.usage;
}

/** Wait until `macs status --json` shows `want` for the worker; returns it. */
async function waitForUsage(
  home: string,
  socket: string,
  want: Partial<Shown>,
): Promise<Shown> {
  let last: Shown | null | undefined;
  await waitFor(
    async () => {
      last = await statusUsage(home, socket);
      return (
        !!last &&
        Object.entries(want).every(
          ([key, value]) => last?.[key as keyof Shown] === value,
        )
      );
    },
    {
      timeout: 60_000,
      interval: 500,
      message: `usage ${JSON.stringify(want)}`,
    },
  ).catch((error: unknown) => {
    throw new Error(
      `${(error as Error).message}; shown: ${JSON.stringify(last)}`,
    );
  });
  return last as Shown;
}

/** `macs usage --json --by agent`: the worker's row. */
async function usageCommand(
  home: string,
  socket: string,
): Promise<Record<string, unknown> | undefined> {
  const run = await runMacs(['usage', '--json', '--by', 'agent'], {
    home,
    socket,
    timeoutMs: 30_000,
  });
  expect(run.exitCode, run.stderr).toBe(0);
  const report = JSON.parse(run.stdout) as {
    rows: Record<string, unknown>[];
  };
  return report.rows.find((r) => r.key === WORKER);
}

describe(`usage of Claude Code ${agent('claude').version}`, () => {
  let session: ClaudeSession | undefined;
  afterEach(async () => {
    await session?.stop();
    session = undefined;
  });

  // Each conversation call reports its own figures: call n (from 1) has
  // 100+n input, 20+n output, 1000+n cache write and 3000+n cache read.
  let calls = 0;
  const usage = (request: ModelRequest): Usage => {
    if (!isConversation(request))
      return {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      };
    calls += 1;
    return {
      input_tokens: 100 + calls,
      output_tokens: 20 + calls,
      cache_creation_input_tokens: 1000 + calls,
      cache_read_input_tokens: 3000 + calls,
    };
  };

  it('status --json and macs usage show the sum of the figures the server sent', async () => {
    calls = 0;
    // The first prompt makes an answer with text and a tool call (two
    // transcript lines for one answer), then one after the tool's result;
    // the second prompt one more answer: three calls.
    const s = await startClaudeSession(
      (request) =>
        !isToolResult(request) && lastUserText(request).includes('Look')
          ? {
              kind: 'tool',
              name: 'Glob',
              input: { pattern: '*.json' },
              text: 'Looking.',
            }
          : { kind: 'text', text: 'Noted.' },
      { usage },
    );
    session = s;
    await submitPrompt(s, 'Look at the files.');
    await waitFor(() => s.server.conversation().length >= 2, {
      timeout: 60_000,
      message: 'the tool call and its result',
    });
    await s.waitState('idle', 'idle after the first prompt');
    await submitPrompt(s, 'Say noted again.');
    await waitFor(() => s.server.conversation().length >= 3, {
      timeout: 60_000,
      message: 'three conversation calls',
    });
    const sent = s.server.requests.flatMap((r) => (r.usage ? [r.usage] : []));
    const sum = (key: keyof Usage) =>
      sent.reduce((total, u) => total + u[key], 0);
    // Never a vacuous match: every figure was sent, and differs.
    for (const key of [
      'input_tokens',
      'output_tokens',
      'cache_read_input_tokens',
      'cache_creation_input_tokens',
    ] as const)
      expect(sum(key), key).toBeGreaterThan(0);
    const model = s.server.conversation()[0]?.body.model as string;
    const shown = await waitForUsage(s.home, s.socket, {
      inputTokens: sum('input_tokens'),
      outputTokens: sum('output_tokens'),
      cacheReadTokens: sum('cache_read_input_tokens'),
      cacheWriteTokens: sum('cache_creation_input_tokens'),
    });
    expect(shown.model).toBe(model);
    const row = await usageCommand(s.home, s.socket);
    expect(row?.inputTokens).toBe(sum('input_tokens'));
    expect(row?.outputTokens).toBe(sum('output_tokens'));
    expect(row?.calls).toBe(3);
    saveSamples(
      'claude',
      jsonlFiles(path.join(s.home, '.claude-config', 'projects')),
    );
  }, 300_000);

  it('a budget: at 80% a person is called, at 100% the worker is paused and nothing more is typed into it', async () => {
    // Each conversation call reports 400 tokens in all (100 in, 300 out);
    // the worker's budget is 1000 tokens: after two calls (800) a person is
    // called, after the third (1200) the worker is paused. The third call
    // prints a request block; its answer is held, never typed.
    const q = REQ('q-b', 'Shall I go on?');
    const s = await startClaudeSession(
      (request) =>
        lastUserText(request).includes('third')
          ? { kind: 'text', text: q }
          : { kind: 'text', text: 'Noted.' },
      {
        usage: (request) => ({
          input_tokens: isConversation(request) ? 100 : 0,
          output_tokens: isConversation(request) ? 300 : 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        }),
        worker: { budget: { tokens: 1000 } },
        config: { backend: 'file' },
      },
    );
    session = s;
    const budgetCalls = () =>
      findEvents(s.home, 'attention').filter(
        (e) => e.data?.reason === 'budget',
      );
    await submitPrompt(s, 'first: say noted.');
    await s.waitState('idle', 'idle after the first prompt');
    await submitPrompt(s, 'second: say noted.');
    await waitFor(() => budgetCalls().length === 1, {
      timeout: 60_000,
      message: 'a person called at 80% of the budget',
    });
    expect(budgetCalls()[0]?.data?.percent).toBe(80);
    expect(findEvents(s.home, 'delivery.paused')).toHaveLength(0);
    await s.waitState('idle', 'idle after the second prompt');
    await submitPrompt(s, 'third: ask me.');
    await waitFor(
      () => findEvents(s.home, 'request.detected', `${WORKER}-q-b`).length > 0,
      { timeout: 60_000, message: 'q-b detected' },
    );
    await waitFor(() => findEvents(s.home, 'delivery.paused').length > 0, {
      timeout: 60_000,
      message: 'the worker paused at 100% of its budget',
    });
    expect(findEvents(s.home, 'delivery.paused')[0]?.data?.by).toBe('budget');
    await waitFor(() => budgetCalls().length === 2, {
      timeout: 30_000,
      message: 'a person told of the pause',
    });
    const conversationCalls = s.server.conversation().length;
    const answer = await s.macs(['respond', `${WORKER}-q-b`, 'Go on.']);
    expect(answer.exitCode, answer.stderr).toBe(0);
    await waitFor(
      () => findEvents(s.home, 'delivery.held', `${WORKER}-q-b`).length > 0,
      { timeout: 30_000, message: 'the answer held while paused' },
    );
    // Nothing typed: the answer is not in the composer and the model was
    // not called again.
    expect(await s.screen()).not.toContain('Go on.');
    expect(findEvents(s.home, 'request.delivered', `${WORKER}-q-b`)).toEqual(
      [],
    );
    expect(s.server.conversation().length).toBe(conversationCalls);
    // Once each: further readings call nobody again.
    expect(budgetCalls()).toHaveLength(2);
  }, 300_000);
});

describe(`usage of Codex ${agent('codex').version}`, () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let server: ResponsesServer | undefined;
  afterEach(async () => {
    await server?.close();
    await cleanUpSession(home, socket);
    cleanup();
  });

  it('status --json and macs usage show the sum of the figures the server sent', async () => {
    ({ home, cleanup } = makeTempHome('macs-codex-usage-'));
    socket = testSocket();
    let calls = 0;
    const titleThread = (r: CodexRequest) =>
      String(r.headers['x-codex-turn-metadata'] ?? '').includes(
        '"thread_source":"thread_title"',
      );
    server = await startResponsesServer({
      fallback: { text: 'Noted.' },
      usage: (request) => {
        if (titleThread(request))
          return {
            input_tokens: 0,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 0,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 0,
          };
        calls += 1;
        return {
          input_tokens: 500 + calls,
          input_tokens_details: { cached_tokens: 200 + calls },
          output_tokens: 40 + calls,
          output_tokens_details: { reasoning_tokens: 10 },
          total_tokens: 540 + 2 * calls,
        };
      },
    });
    const source = writeCodexSourceHome({
      dir: path.join(home, 'codex-source'),
      baseUrl: server.baseUrl,
      trusted: [home],
    });
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        backend: 'file',
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
      timeoutMs: 60_000,
    });
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    const pane = readSessionFile(home)?.agents[0]?.pane as string;
    const screen = async () =>
      (await tmuxOn(socket, 'capture-pane', '-p', '-t', pane)) ?? '';
    const idle = async () =>
      readStateFile(home, WORKER)?.state === 'idle' &&
      /Ask Codex to do anything/.test(await screen());
    for (const prompt of ['Say noted.', 'Say noted again.']) {
      await waitFor(idle, { timeout: 120_000, message: 'Codex idle' });
      // Through `macs send`, which types only into an idle Codex and
      // presses Enter again while the composer keeps the text: a bare
      // `send-keys` Enter was lost on a loaded CI machine. The first one
      // comes as Codex finishes starting, when it draws the text late
      // and can drop the key (docs/reliability.md, "One submission").
      const before = calls;
      const sent = await runMacs(['send', WORKER, prompt], {
        home,
        socket,
        timeoutMs: 120_000,
      });
      expect(sent.exitCode, sent.stderr + sent.stdout).toBe(0);
      await waitFor(() => calls > before, {
        timeout: 60_000,
        message: `a model call for "${prompt}"`,
      });
    }
    await waitFor(idle, { timeout: 120_000, message: 'Codex idle at the end' });
    const sent = (server.requests ?? []).flatMap((r) =>
      r.usage ? [r.usage] : [],
    );
    const sum = (pick: (u: (typeof sent)[number]) => number) =>
      sent.reduce((total, u) => total + pick(u), 0);
    // Codex's input figure includes the cached part; macs shows the
    // uncached input and the cache read apart (docs/usage.md).
    const cached = sum((u) => u.input_tokens_details.cached_tokens);
    // Never a vacuous match: the cached part and the output were sent.
    expect(cached).toBeGreaterThan(0);
    expect(sum((u) => u.input_tokens)).toBeGreaterThan(cached);
    expect(sum((u) => u.output_tokens)).toBeGreaterThan(0);
    const shown = await waitForUsage(home, socket, {
      inputTokens: sum((u) => u.input_tokens) - cached,
      cacheReadTokens: cached,
      outputTokens: sum((u) => u.output_tokens),
      // The Responses API sends no cache-write figure; Codex 0.169 records
      // its own `cache_write_input_tokens`, 0 (docs/usage.md).
      cacheWriteTokens: 0,
    });
    expect(shown.model).toBe('gpt-5-codex');
    const row = await usageCommand(home, socket);
    expect(row?.outputTokens).toBe(sum((u) => u.output_tokens));
    saveSamples(
      'codex',
      jsonlFiles(path.join(home, '.macs', 'codex', WORKER, 'sessions')),
    );
  }, 300_000);
});

describe(`usage of Gemini CLI ${agent('gemini').version}`, () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let server: GeminiApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    await cleanUpSession(home, socket);
    cleanup();
  });

  it('status --json and macs usage show the sum of the figures the server sent', async () => {
    ({ home, cleanup } = makeTempHome('macs-gemini-usage-'));
    socket = testSocket();
    let calls = 0;
    const isChat = (r: GeminiRequest) => r.action === 'streamGenerateContent';
    server = await startGeminiApiServer({
      turns: [{ text: 'Noted, first.' }, { text: 'Noted, second.' }],
      usage: (request) => {
        if (!isChat(request))
          return {
            promptTokenCount: 0,
            candidatesTokenCount: 0,
            totalTokenCount: 0,
          };
        calls += 1;
        return {
          promptTokenCount: 700 + calls,
          cachedContentTokenCount: 300 + calls,
          candidatesTokenCount: 30 + calls,
          thoughtsTokenCount: 7,
          totalTokenCount: 737 + 2 * calls,
        };
      },
    });
    const geminiHome = path.join(home, 'gemini-home');
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        backend: 'file',
        workers: [
          {
            name: WORKER,
            preset: 'gemini',
            command: [agent('gemini').bin],
            env: geminiEnv(geminiHome, server.url),
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
    const pane = readSessionFile(home)?.agents[0]?.pane as string;
    const screen = async () =>
      (await tmuxOn(socket, 'capture-pane', '-p', '-t', pane)) ?? '';
    const replies = ['Noted, first.', 'Noted, second.'];
    for (const [i, prompt] of ['Say noted.', 'Say noted again.'].entries()) {
      // The state file can still say the `idle` of before the last turn
      // for a moment, so the turn's reply must be on screen first. The
      // prompt goes through `macs send`, which types only into an idle
      // Gemini and presses Enter again if Gemini let one drop.
      if (i > 0)
        await waitFor(async () => (await screen()).includes(replies[i - 1]!), {
          timeout: 90_000,
          message: `the reply "${replies[i - 1]}" on screen`,
        });
      await waitFor(() => readStateFile(home, WORKER)?.state === 'idle', {
        timeout: 120_000,
        message: 'Gemini idle',
      });
      const before = calls;
      const sent = await runMacs(['send', WORKER, prompt], {
        home,
        socket,
        timeoutMs: 120_000,
      });
      expect(sent.exitCode, sent.stderr + sent.stdout).toBe(0);
      await waitFor(() => calls > before, {
        timeout: 90_000,
        message: `a model call for "${prompt}"`,
      });
    }
    await waitFor(async () => (await screen()).includes(replies[1]!), {
      timeout: 90_000,
      message: `the reply "${replies[1]}" on screen`,
    });
    await waitFor(() => readStateFile(home, WORKER)?.state === 'idle', {
      timeout: 120_000,
      message: 'Gemini idle at the end',
    });
    const sent = server.requests.flatMap((r) => (r.usage ? [r.usage] : []));
    const sum = (pick: (u: (typeof sent)[number]) => number) =>
      sent.reduce((total, u) => total + pick(u), 0);
    // Gemini's prompt figure includes the cached part, and its thoughts
    // are output (docs/usage.md).
    const cached = sum((u) => u.cachedContentTokenCount ?? 0);
    // Never a vacuous match: the cached part, thoughts and output were sent.
    expect(cached).toBeGreaterThan(0);
    expect(sum((u) => u.promptTokenCount)).toBeGreaterThan(cached);
    expect(sum((u) => u.thoughtsTokenCount ?? 0)).toBeGreaterThan(0);
    const shown = await waitForUsage(home, socket, {
      inputTokens: sum((u) => u.promptTokenCount) - cached,
      cacheReadTokens: cached,
      outputTokens: sum(
        (u) => u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0),
      ),
      cacheWriteTokens: null,
    });
    expect(shown.model).toBe(GEMINI_MODEL);
    const row = await usageCommand(home, socket);
    expect(row?.inputTokens).toBe(sum((u) => u.promptTokenCount) - cached);
    saveSamples('gemini', jsonlFiles(path.join(geminiHome, '.gemini', 'tmp')));
  }, 300_000);
});
