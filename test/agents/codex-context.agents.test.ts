// The real Codex CLI (pinned) compacting its context through macs (issue 32;
// docs/hooks.md "Subagents and compaction"). macs installed only Codex's
// `notify`, so a compaction went unseen: no `context.compacted`, 0 in
// `macs status --json`, and a compacted Codex worker kept of the request
// protocol (its first message) only what the summary kept. Strategy:
// `macs start` with one real Codex worker against the scripted Responses
// server; two turns, then a person types `/compact` (the server answers
// Codex's summary request); the compaction must be recorded and counted,
// and the model call after it must carry the protocol and macs's note,
// which the SessionStart hook (source `compact`) gave back.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findEvents, runMacs, waitForEvents } from '../helpers/macs.js';
import {
  cleanUpSession,
  readSessionFile,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { codexTestEnv, writeCodexSourceHome } from './codex-home.js';
import { agent } from './pins.js';
import {
  startResponsesServer,
  userTexts,
  type RecordedRequest,
  type ResponsesServer,
} from './servers/openai-responses.js';

const CODEX = agent('codex');
const SUMMARY_PROMPT = 'CONTEXT CHECKPOINT COMPACTION';
const SUMMARY = 'SUMMARY: the user asked for a report; a title was added.';

/** The request the person's own thread makes (not Codex's title thread). */
const userThread = (r: RecordedRequest) =>
  !String(r.headers['x-codex-turn-metadata'] ?? '').includes(
    '"thread_source":"thread_title"',
  );
const lastUserText = (r: RecordedRequest) => userTexts(r).at(-1) ?? '';
const asked = (r: RecordedRequest, prompt: string) =>
  userTexts(r).includes(prompt);

describe(`the real Codex CLI ${CODEX.version}: compaction`, () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let server: ResponsesServer | undefined;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-codex-ctx-'));
    socket = testSocket();
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await cleanUpSession(home, socket);
    cleanup();
  });

  const macs = (args: string[], timeoutMs = 60_000) =>
    runMacs(args, { home, socket, timeoutMs });

  it('/compact: recorded, counted, and the next model call carries the protocol again', async () => {
    server = await startResponsesServer({
      // Codex may add hook context after the prompt: a turn is for the
      // request that has its prompt, latest prompts first.
      turns: [
        {
          when: (r) =>
            userThread(r) && lastUserText(r).includes(SUMMARY_PROMPT),
          text: SUMMARY,
        },
        {
          when: (r) => userThread(r) && asked(r, 'What is next?'),
          text: 'Next I write the first section.',
        },
        {
          when: (r) => userThread(r) && asked(r, 'Add a title.'),
          text: 'Added a title.',
        },
        {
          when: (r) => userThread(r) && asked(r, 'Please start the report.'),
          text: 'Started the report.',
        },
      ],
      fallback: { text: 'Report' },
    });
    const s = server;
    const source = writeCodexSourceHome({
      dir: path.join(home, 'user-codex-home'),
      baseUrl: s.baseUrl,
      trusted: [home],
    });
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
    const pane = readSessionFile(home)?.agents[0]?.pane as string;
    expect(pane).toMatch(/^%\d+$/);
    const screen = async () =>
      (await tmuxOn(socket, 'capture-pane', '-p', '-t', pane)) ?? '';
    const explain = async () =>
      `--- screen:\n${await screen()}\n--- events:\n${readEvents()}\n--- model requests: ${s.requests.length}`;
    const readEvents = () => {
      try {
        return readFileSync(
          path.join(home, '.macs', 'events', 'worker-1.jsonl'),
          'utf8',
        ).slice(-4000);
      } catch {
        return '(none)';
      }
    };
    const explained = async <T>(wait: Promise<T>): Promise<T> => {
      try {
        return await wait;
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${await explain()}`);
      }
    };
    const idleComposer = () =>
      explained(
        waitFor(async () => /Ask Codex to do anything/.test(await screen()), {
          timeout: 120_000,
          message: 'Codex idle at its composer',
        }),
      );

    // macs's hooks are in the agent's own Codex home, trusted there.
    const codexHome = path.join(home, '.macs', 'codex', 'worker-1');
    expect(readFileSync(path.join(codexHome, 'hooks.json'), 'utf8')).toMatch(
      /"PostCompact"/,
    );
    await idleComposer();
    // Codex reads its first prompt once its startup is over (the footer
    // names the startup warnings then), as the Codex agents test waits.
    await explained(
      waitFor(async () => /f2 to view/.test(await screen()), {
        timeout: 60_000,
        message: 'the warnings hint in the footer',
      }),
    );

    for (const [n, prompt] of [
      'Please start the report.',
      'Add a title.',
    ].entries()) {
      const sent = await macs(['send', 'worker-1', prompt]);
      expect(sent.exitCode, sent.stderr).toBe(0);
      await explained(
        waitFor(
          () =>
            findEvents(home, 'hook.notify').filter((e) => !e.data?.auxiliary)
              .length > n,
          { timeout: 60_000, message: `the end of turn ${n + 1}` },
        ),
      );
      await idleComposer();
    }
    // Codex ran the SessionStart hook as the first turn began (it is
    // trusted, so it runs), and that turn's model call had the protocol.
    const [started] = findEvents(home, 'hook.SessionStart');
    expect(started?.data?.source).toBe('startup');
    const first = s.requests.find(
      (r) => userThread(r) && asked(r, 'Please start the report.'),
    );
    expect(JSON.stringify(first?.body?.input)).toContain(
      '<<CONTROLLER_REQUEST id=q-1 type=question>>',
    );

    const typed = await macs(['send', 'worker-1', '/compact']);
    expect(typed.exitCode, typed.stderr).toBe(0);
    const [compacted] = await explained(
      waitForEvents(home, 'context.compacted', { timeout: 90_000 }),
    );
    expect(compacted?.data?.trigger).toBe('manual');
    const [pre] = await explained(waitForEvents(home, 'hook.PreCompact'));
    expect(pre?.data?.trigger).toBe('manual');
    expect(
      s.requests.some(
        (r) => userThread(r) && lastUserText(r).includes(SUMMARY_PROMPT),
      ),
    ).toBe(true);

    const status = await macs(['status', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    const worker = (
      JSON.parse(status.stdout) as {
        agents: {
          name: string;
          compactions?: number;
          lastCompaction?: { trigger: string } | null;
        }[];
      }
    ).agents.find((a) => a.name === 'worker-1');
    expect(worker?.compactions).toBe(1);
    expect(worker?.lastCompaction?.trigger).toBe('manual');

    await idleComposer();
    const next = await macs(['send', 'worker-1', 'What is next?']);
    expect(next.exitCode, next.stderr).toBe(0);
    const after = await explained(
      waitFor(
        () =>
          s.requests.find((r) => userThread(r) && asked(r, 'What is next?')),
        { timeout: 60_000, message: 'the model call after /compact' },
      ),
    );
    const sent = JSON.stringify(after.body?.input);
    // The conversation was compacted: the summary replaced the old turns.
    expect(sent).toContain('SUMMARY: the user asked for a report');
    expect(sent).not.toContain('Started the report.');
    // The protocol and macs's note came back with it.
    expect(sent).toContain('<<CONTROLLER_REQUEST id=q-1 type=question>>');
    expect(sent).toContain('macs supervises you as agent \\"worker-1\\"');
    expect(sent).toContain('Your context was just compacted');
    await explained(
      waitFor(
        () =>
          findEvents(home, 'hook.SessionStart').some(
            (e) => e.data?.source === 'compact',
          ),
        { message: 'the SessionStart hook with source compact' },
      ),
    );
    // The protocol came back as context, not as a request on the screen.
    expect(findEvents(home, 'request.detected')).toHaveLength(0);
  });
});
