// Issue 13, "Done when": the real Claude Code as the controller, wired to
// `macs mcp` exactly as `macs start` wires it (--mcp-config, hook settings),
// answers a fake worker's request end to end. The model is the scripted
// server of test/agents/servers/anthropic.ts: given the controller's first
// message it calls `wait_for_request`, then `answer_request` with the
// instructions, then waits again for the worker's next request (a call that
// blocks until it comes) and answers that too, all as Claude Code names MCP
// tools (mcp__macs__<tool>). The worker is the project's fake agent: it
// prints a request block, and the next once it got an answer, and records
// every input it gets.
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_SERVER_NAME } from '../../src/session/mcp-wiring.js';
import {
  FAKE_AGENT,
  findEvents,
  readAllEvents,
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
import { claudeEnv, seedClaudeConfig } from './claude-session.js';
import { agent } from './pins.js';
import {
  isToolResult,
  lastToolUse,
  lastUserText,
  startAnthropicServer,
  toolNames,
  type AnthropicServer,
  type Script,
  type Turn,
} from './servers/anthropic.js';

const VERSION = agent('claude').version;
const CONTROLLER = 'controller';
const WORKER = 'worker-1';
const REQUEST_ID = `${WORKER}-m1`;
const BODY = 'Which port should the API listen on?';
const INSTRUCTIONS = 'Use port 8080 and document it in the README.';
const NEXT_ID = `${WORKER}-m2`;
const NEXT_BODY = 'Should the health check live under /healthz?';
const NEXT_INSTRUCTIONS = 'Yes, /healthz, and test it.';
/**
 * Claude Code's (2.1.197) tool for MCP servers that are still connecting,
 * offered while one is: `{servers?: string[]}`, it returns once they are.
 */
const WAIT_FOR_SERVERS = 'WaitForMcpServers';
/** A tool of the macs server as Claude Code names it. */
const tool = (name: string) => `mcp__${MCP_SERVER_NAME}__${name}`;

/**
 * The id of the request a `wait_for_request` result returns. Claude Code
 * 2.1.197 gives the model the tool's structured content as JSON; the plain
 * text (`request <id> from …`) is read when that changes.
 */
function requestIdOf(result: string): string | undefined {
  try {
    return (JSON.parse(result) as { request?: { id?: string } | null }).request
      ?.id;
  } catch {
    return /^request (\S+) from /m.exec(result)?.[1];
  }
}

/**
 * The controller's model: the first message (it names `wait_for_request`)
 * makes it wait for a request (first for the macs server, when Claude Code
 * sent the message before the server's tools were there); a request that comes back is answered; after
 * the first answer it waits again, after the second it ends the turn. The
 * first call is held until `sessionStarted` settles (the SessionStart hook
 * ran), so the hook's context reaches the model within the same turn.
 */
const controllerModel =
  (sessionStarted: () => Promise<unknown>): Script =>
  (request) => {
    const wait = (hold?: Promise<unknown>): Turn => ({
      kind: 'tool',
      name: tool('wait_for_request'),
      // A request that came before the call is taken too: the second one
      // may be printed before the model calls again.
      input: { include_pending: true, timeout_sec: 120 },
      ...(hold ? { hold } : {}),
    });
    const last = isToolResult(request) ? lastToolUse(request) : undefined;
    if (last?.name === tool('wait_for_request')) {
      const text = lastUserText(request);
      const id = requestIdOf(text);
      const instructions =
        id === REQUEST_ID
          ? INSTRUCTIONS
          : id === NEXT_ID
            ? NEXT_INSTRUCTIONS
            : undefined;
      return instructions
        ? {
            kind: 'tool',
            name: tool('answer_request'),
            input: { id, instructions },
          }
        : { kind: 'text', text: `No request came: ${text.slice(0, 200)}` };
    }
    // The macs server was still connecting at the first message; after the
    // wait its tools are in the list.
    if (last?.name === WAIT_FOR_SERVERS)
      return toolNames(request).includes(tool('wait_for_request'))
        ? wait()
        : { kind: 'text', text: 'The macs tools never came.' };
    if (last?.name === tool('answer_request'))
      return last.input.id === REQUEST_ID
        ? wait()
        : { kind: 'text', text: `Answered ${REQUEST_ID} and ${NEXT_ID}.` };
    if (last)
      return { kind: 'text', text: `Unexpected result of ${last.name}.` };
    if (lastUserText(request).includes('wait_for_request'))
      return toolNames(request).includes(tool('wait_for_request'))
        ? wait(sessionStarted())
        : // Claude Code offers this tool while a server still connects.
          {
            kind: 'tool',
            name: WAIT_FOR_SERVERS,
            input: { servers: [MCP_SERVER_NAME] },
            hold: sessionStarted(),
          };
    return { kind: 'text', text: 'OK.' };
  };

describe(`the real Claude Code ${VERSION} as an MCP controller`, () => {
  let cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const clean of cleanups.reverse())
      await Promise.resolve(clean()).catch(() => undefined);
    cleanups = [];
  });

  it('answers a fake worker request, then waits for and answers its next, through the macs tools; nothing typed into it for them', async () => {
    const temp = makeTempHome('macs-claude-ctl-');
    cleanups.push(() => temp.cleanup());
    const home = realpathSync(temp.home);
    const socket = testSocket();
    const server: AnthropicServer = await startAnthropicServer({
      script: controllerModel(() =>
        waitForEvents(home, 'hook.SessionStart', { timeout: 60_000 }),
      ),
      lifeMs: 10 * 60_000,
    });
    cleanups.push(() => server.close());
    const configDir = path.join(home, '.claude-config');
    seedClaudeConfig(configDir, home);
    const record = path.join(home, 'worker.record.jsonl');
    const workerScript = path.join(home, 'worker.script.json');
    writeFileSync(
      workerScript,
      JSON.stringify([
        { print: REQ('m1', BODY, ' type=question') },
        { wait: 'submit' },
        { print: REQ('m2', NEXT_BODY, ' type=question') },
        { wait: 'submit' },
      ]),
    );
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        controller: {
          name: CONTROLLER,
          preset: 'claude',
          command: [agent('claude').bin],
          env: claudeEnv(server.url, configDir),
        },
        workers: [
          {
            name: WORKER,
            preset: 'generic',
            prompt: false,
            command: [
              process.execPath,
              FAKE_AGENT,
              '--script',
              workerScript,
              '--record',
              record,
            ],
          },
        ],
      }),
    );
    cleanups.push(async () => {
      await runMacs(['stop', '--grace-sec', '1'], {
        home,
        socket,
        timeoutMs: 60_000,
      });
      await cleanUpSession(home, socket);
    });
    const start = await runMacs(['start', '--detach'], {
      home,
      socket,
      timeoutMs: 120_000,
    });
    expect(start.exitCode, `${start.stderr}${start.stdout}`).toBe(0);
    const pane =
      readSessionFile(home)?.agents.find((a) => a.name === CONTROLLER)?.pane ??
      '';
    expect(pane).not.toBe('');
    const explain = async () => {
      const screen =
        (await tmuxOn(socket, 'capture-pane', '-p', '-t', pane)) ?? '';
      const events = readAllEvents(home)
        .slice(-40)
        .map((e) => `${e.agent} ${e.type} ${JSON.stringify(e.data ?? {})}`);
      const asked = server
        .conversation()
        .map(
          (r) =>
            `${isToolResult(r) ? `result of ${lastToolUse(r)?.name}` : 'prompt'}: ${lastUserText(r).slice(0, 300)}`,
        );
      return `--- controller screen:\n${screen}\n--- model requests:\n${asked.join('\n')}\n--- last events:\n${events.join('\n')}`;
    };
    const explained = async <T>(wait: Promise<T>): Promise<T> => {
      try {
        return await wait;
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${await explain()}`);
      }
    };

    // The controller got its tools (the first message) and offers the
    // macs tools to its model.
    await explained(
      waitForEvents(home, 'agent.prompted', {
        timeout: 90_000,
        message: 'the controller got its first message',
      }),
    );
    await explained(
      waitFor(
        () =>
          server
            .conversation()
            .some((r) => lastUserText(r).includes('wait_for_request')),
        { timeout: 30_000, message: 'the first message reached the model' },
      ),
    );

    // The model waits, gets the request, answers it; the bridge delivers it;
    // the worker asks again, and the model's next wait returns that.
    for (const id of [REQUEST_ID, NEXT_ID])
      await explained(
        waitForEvents(home, 'request.confirmed', {
          requestId: id,
          timeout: 60_000,
        }),
      );
    expect(
      readRecord(record)
        .filter((r) => r.type === 'submit')
        .map((r) => r.text),
    ).toEqual([INSTRUCTIONS, NEXT_INSTRUCTIONS]);
    for (const id of [REQUEST_ID, NEXT_ID]) {
      const [delivered, ...again] = findEvents(home, 'request.delivered', id);
      expect(again).toEqual([]);
      expect(delivered?.agent).toBe(WORKER);
    }
    const calls = findEvents(home, 'mcp.call');
    expect(calls).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          data: expect.objectContaining({
            by: 'mcp',
            tool: 'wait_for_request',
            ok: true,
          }) as unknown,
        }),
        expect.objectContaining({
          agent: WORKER,
          data: expect.objectContaining({
            by: 'mcp',
            tool: 'answer_request',
            ok: true,
          }) as unknown,
        }),
      ]),
    );
    expect(
      calls.filter(
        (e) =>
          e.data?.tool === 'answer_request' &&
          e.data.ok === true &&
          e.data.by === 'mcp',
      ),
    ).toHaveLength(2);
    // The model saw the second answer's result and ended its turn.
    await explained(
      waitFor(
        () =>
          server
            .conversation()
            .some(
              (r) =>
                isToolResult(r) &&
                lastToolUse(r)?.input.id === NEXT_ID &&
                lastToolUse(r)?.name === tool('answer_request'),
            ),
        { timeout: 60_000, message: 'the second answer_request result' },
      ),
    );

    // The macs tools were offered to the model (at once or once connected).
    expect(
      server
        .conversation()
        .some((r) =>
          [tool('wait_for_request'), tool('answer_request')].every((name) =>
            toolNames(r).includes(name),
          ),
        ),
    ).toBe(true);

    // Nothing of the request was typed into the controller's pane: no event
    // of the controller names it, its only prompt (bridge and hook agree)
    // is the first message, and the request reached its model only as a
    // tool result.
    expect(
      readAllEvents(home).filter(
        (e) =>
          e.agent === CONTROLLER &&
          (e.requestId === REQUEST_ID || e.requestId === NEXT_ID),
      ),
    ).toEqual([]);
    expect(
      findEvents(home, 'agent.prompted').filter((e) => e.agent === CONTROLLER),
    ).toHaveLength(1);
    expect(
      findEvents(home, 'hook.UserPromptSubmit').filter(
        (e) => e.agent === CONTROLLER,
      ),
    ).toHaveLength(1);
    expect(
      server
        .conversation()
        .filter((r) => !isToolResult(r))
        .some(
          (r) =>
            lastUserText(r).includes(BODY) ||
            lastUserText(r).includes(NEXT_BODY),
        ),
    ).toBe(false);
    // Its SessionStart hook told it its role, never the worker protocol
    // (Claude Code sends the hook's context as a system message, before
    // or after the first prompt).
    const everything = JSON.stringify(
      server.conversation().map((r) => r.body.messages),
    );
    expect(everything).toContain('you are their controller');
    expect(everything).not.toContain('You are a worker agent');
  });
});
