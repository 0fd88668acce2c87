import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { readEvents } from '../../src/events/log.js';
import { createSilentLogger } from '../../src/log/logger.js';
import {
  createMacsMcpServer,
  type MacsMcpOptions,
} from '../../src/mcp/mcp-server.js';
import { writeSessionRecord } from '../../src/session/record.js';
import type { RunTmux } from '../../src/tmux/run.js';
import { createHomeFixture } from '../state/home-fixture.js';
import { textOf, type ToolResult } from './harness.js';

// The whole server as `macs mcp` builds it, over an in-memory connection.
describe('createMacsMcpServer', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  let client: Client | undefined;
  const tmuxRuns: string[][] = [];
  /** tmux as if every pane were gone. */
  const runTmux: RunTmux = (args) => {
    tmuxRuns.push([...args]);
    return Promise.resolve({
      exitCode: 1,
      stdout: '',
      stderr: "can't find pane: %3",
    });
  };
  beforeEach(async () => {
    fx = createHomeFixture();
    tmuxRuns.length = 0;
    await fx.writeState('worker-1', (s) => {
      s.pane = '%3';
    });
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    fx.cleanup();
  });

  async function connect(over: Partial<MacsMcpOptions> = {}) {
    const { server, recording } = createMacsMcpServer({
      paths: fx.paths,
      log: createSilentLogger(),
      config: ConfigSchema.parse({}),
      runTmux,
      version: '9.9.9',
      ...over,
    });
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await server.connect(recording(serverEnd));
    const connected = new Client({ name: 'macs-test', version: '0.0.0' });
    await connected.connect(clientEnd);
    client = connected;
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await connected.callTool({ name, arguments: args })) as ToolResult;
    return { client: connected, call };
  }

  it('serves the eight tools, in their order, as macs at its version', async () => {
    const { client: c } = await connect();
    expect(c.getServerVersion()).toEqual({ name: 'macs', version: '9.9.9' });
    expect(c.getInstructions()).toMatch(
      /^macs supervises worker coding agents/,
    );
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual([
      'list_agents',
      'list_requests',
      'get_request',
      'read_screen',
      'answer_request',
      'decide_approval',
      'send_message',
      'wait_for_request',
    ]);
  });

  it('records the calls the SDK refuses under the mcp agent', async () => {
    const { call } = await connect();
    await call('no_such_tool').catch(() => undefined);
    await call('list_requests', { stage: 'nonsense' }).catch(() => undefined);
    expect(
      (await readEvents(fx.paths, { type: 'mcp.call' })).map((e) => [
        e.agent,
        e.data?.tool,
        e.data?.ok,
      ]),
    ).toEqual([
      ['mcp', 'no_such_tool', false],
      ['mcp', 'list_requests', false],
    ]);
  });

  it("reads screens on --tmux-socket, else the session's server", async () => {
    const first = await connect({ socket: 'macs-given' });
    const gone = await first.call('read_screen', { agent: 'worker-1' });
    expect(textOf(gone)).toBe(
      "agent 'worker-1' has no pane any more (%3 is gone)",
    );
    expect(tmuxRuns[0]?.slice(0, 2)).toEqual(['-L', 'macs-given']);

    await client?.close();
    tmuxRuns.length = 0;
    await writeSessionRecord(fx.paths, {
      version: 1,
      home: fx.home,
      socket: 'macs-recorded',
      session: 'macs',
      createdAt: '2025-03-01T11:00:00.000Z',
      backend: 'file',
      panes: { bridge: '%0', status: '%1' },
      agents: [],
    });
    const second = await connect();
    await second.call('read_screen', { agent: 'worker-1' });
    await second.call('read_screen', { agent: 'worker-1' });
    // Every tmux run (the screen reads, and the session-server probe of
    // the snapshot) goes to the session's server.
    expect(tmuxRuns.length).toBeGreaterThanOrEqual(2);
    expect(new Set(tmuxRuns.map((args) => args.slice(0, 2).join(' ')))).toEqual(
      new Set(['-L macs-recorded']),
    );
  });

  it("sends messages on --tmux-socket, else the session's server", async () => {
    // send_message goes through operations/send-message.ts with the
    // server's home and socket (before issue 30 the command handed the
    // server `macs send`'s function): here every pane is gone, so it is
    // refused after asking that server about the agent's pane.
    const { call } = await connect({ socket: 'macs-given' });
    const refused = await call('send_message', {
      agent: 'worker-1',
      text: 'hello',
      timeout_sec: 7,
    });
    expect(refused.isError).toBe(true);
    expect(tmuxRuns.map((args) => args.slice(0, 2))).toContainEqual([
      '-L',
      'macs-given',
    ]);
    await client?.close();
    tmuxRuns.length = 0;
    await connect();
    await client?.callTool({
      name: 'send_message',
      arguments: { agent: 'worker-1', text: 'again' },
    });
    expect(tmuxRuns.length).toBeGreaterThan(0);
    expect(tmuxRuns.flat()).not.toContain('macs-given');
  });
});
