// Issue 13, part 2: `macs start` registers `macs mcp` with a controller of a
// known preset. The fake agent stands in for a Claude Code controller (it
// takes --mcp-config); the test checks its argv and first message, then
// starts the MCP server exactly as that --mcp-config file says (as Claude
// Code would) and answers a fake worker's request through it.
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_AGENT,
  readRecord,
  REQ,
  runMacs,
  waitForEvents,
} from '../helpers/macs.js';
import { cleanUpSession, testSocket } from '../helpers/session.js';
import { childEnv, makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

interface McpConfigFile {
  mcpServers: { macs: { type: string; command: string; args: string[] } };
}

describe('macs start wires a Claude Code controller to macs mcp (issue 13)', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let client: Client | undefined;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-mcp-start-'));
    socket = testSocket();
  });
  afterEach(async () => {
    await client?.close().catch(() => undefined);
    client = undefined;
    await cleanUpSession(home, socket);
    cleanup();
  });

  it('passes --mcp-config and a first message; the server it names answers the worker through the bridge', async () => {
    const controllerRecord = path.join(home, 'controller.record.jsonl');
    const record = path.join(home, 'worker.record.jsonl');
    const script = path.join(home, 'worker.script.json');
    writeFileSync(
      script,
      JSON.stringify([
        {
          print: REQ('m1', 'Which port should the API use?', ' type=question'),
        },
        { wait: 'submit' },
      ]),
    );
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        controller: {
          name: 'controller',
          preset: 'claude',
          command: [process.execPath, FAKE_AGENT, '--record', controllerRecord],
        },
        workers: [
          {
            name: 'worker-1',
            preset: 'generic',
            prompt: false,
            command: [
              process.execPath,
              FAKE_AGENT,
              '--script',
              script,
              '--record',
              record,
            ],
          },
        ],
      }),
    );
    const run = await runMacs(['start', '--detach', '--no-wait'], {
      home,
      socket,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const session = JSON.parse(
      readFileSync(path.join(home, '.macs', 'session.json'), 'utf8'),
    ) as {
      agents: { role: string; mcp?: string; launch?: { argv: string[] } }[];
    };
    const controller = session.agents.find((a) => a.role === 'controller');
    expect(controller).toMatchObject({ mcp: 'claude' });
    const argv = controller?.launch?.argv ?? [];
    const at = argv.indexOf('--mcp-config');
    expect(at).toBeGreaterThanOrEqual(0);
    const file = argv[at + 1] ?? '';
    // Its tools are allowed, so Claude Code does not ask before each call.
    expect(argv[argv.indexOf('--allowedTools') + 1]).toBe('mcp__macs');
    expect(realpathSync(file)).toBe(
      path.join(realpathSync(home), '.macs', 'mcp', 'controller.claude.json'),
    );
    // Its first message (the bridge types it once the controller is idle)
    // explains the tools.
    const first = await waitFor(
      () => readRecord(controllerRecord).find((r) => r.type === 'submit'),
      { timeout: 30_000, message: 'the controller got its first message' },
    );
    expect(first.text).toContain('macs: you are controller, the controller');
    expect(first.text).toContain('wait_for_request');
    const server = (JSON.parse(readFileSync(file, 'utf8')) as McpConfigFile)
      .mcpServers.macs;
    expect(server.type).toBe('stdio');
    expect(server.args).toEqual(
      expect.arrayContaining(['mcp', '--home', '--tmux-socket', socket]),
    );
    // A long-lived process: Node's flag comes before the script.
    expect(server.args[0]).toBe('--no-memory-reducer');
    // Nothing in the user's own config.
    expect(existsSync(path.join(home, '.mcp.json'))).toBe(false);
    expect(existsSync(path.join(home, '.claude'))).toBe(false);

    // Start the server as the file says, in another folder: it finds the
    // home from its arguments alone.
    const env = childEnv();
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: Object.fromEntries(
        Object.entries(env).filter(
          (e): e is [string, string] => e[1] !== undefined,
        ),
      ),
      cwd: path.dirname(home),
      stderr: 'pipe',
    });
    client = new Client({ name: 'stand-in-claude', version: '0.0.0' });
    await client.connect(transport);
    const waited = (await client.callTool(
      {
        name: 'wait_for_request',
        arguments: { include_pending: true, timeout_sec: 120 },
      },
      undefined,
      { timeout: 300_000 },
    )) as { isError?: boolean; structuredContent?: Record<string, unknown> };
    expect(waited.isError).toBeFalsy();
    expect(waited.structuredContent).toMatchObject({
      request: { id: 'worker-1-m1', body: 'Which port should the API use?' },
    });
    const answered = (await client.callTool({
      name: 'answer_request',
      arguments: { id: 'worker-1-m1', instructions: 'Use port 8080.' },
    })) as { isError?: boolean };
    expect(answered.isError).toBeFalsy();
    await waitForEvents(home, 'request.confirmed', {
      requestId: 'worker-1-m1',
      timeout: 30_000,
    });
    expect(
      readRecord(record)
        .filter((r) => r.type === 'submit')
        .map((r) => r.text),
    ).toEqual(['Use port 8080.']);
    const stop = await runMacs(['stop', '--grace-sec', '1'], { home, socket });
    expect(stop.exitCode, stop.stderr).toBe(0);
  });
});
