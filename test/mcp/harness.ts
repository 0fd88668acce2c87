import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createEventLog, readEvents } from '../../src/events/log.js';
import type { MacsEvent } from '../../src/events/types.js';
import { createSilentLogger } from '../../src/log/logger.js';
import {
  createToolRegistrar,
  knownAgentCheck,
  type RegisterTool,
  type ToolContext,
} from '../../src/mcp/tool.js';
import { createSnapshotReader } from '../../src/state/snapshot.js';
import {
  createSnapshotFeed,
  shareSnapshotFeed,
} from '../../src/state/snapshot-feed.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';
import type { createHomeFixture } from '../state/home-fixture.js';

/** What a tool call answers, as the client sees it. */
export interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** A tool context for a fixture home, its tmux a fake; `send` must be given to be called. */
export function makeToolContext(
  fx: ReturnType<typeof createHomeFixture>,
  over: Partial<ToolContext> = {},
): ToolContext & { fakeTmux: FakeTmuxClient } {
  const fakeTmux = new FakeTmuxClient();
  return {
    paths: fx.paths,
    reader: createSnapshotReader(fx.paths, { eventLimit: 1 }),
    tmux: () => Promise.resolve(fakeTmux),
    send: () => Promise.reject(new Error('send is not part of this test')),
    snapshots: shareSnapshotFeed(() =>
      createSnapshotFeed({
        paths: fx.paths,
        reader: createSnapshotReader(fx.paths, { eventLimit: 1 }),
        throttleMs: 20,
      }),
    ),
    fakeTmux,
    ...over,
  };
}

/**
 * An MCP server of the tools `register` adds (through the real registrar,
 * events in the fixture's home), and an SDK client connected to it in
 * memory. `wrap` may wrap the server's end of the connection.
 */
export async function connectTools(
  fx: ReturnType<typeof createHomeFixture>,
  register: (tool: RegisterTool) => void,
  wrap: (transport: Transport, reached: Set<string | number>) => Transport = (
    t,
  ) => t,
) {
  const server = new McpServer({ name: 'macs-test', version: '0.0.0' });
  const reached = new Set<string | number>();
  register(
    createToolRegistrar({
      server,
      events: createEventLog(fx.paths),
      log: createSilentLogger(),
      reached,
      isKnownAgent: knownAgentCheck(fx.paths),
    }),
  );
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(wrap(serverEnd, reached));
  const client = new Client({ name: 'macs-test', version: '0.0.0' });
  await client.connect(clientEnd);
  return {
    client,
    server,
    reached,
    call: async (
      name: string,
      args: Record<string, unknown> = {},
      options: { signal?: AbortSignal; onprogress?: () => void } = {},
    ): Promise<ToolResult> =>
      (await client.callTool(
        { name, arguments: args },
        undefined,
        options,
      )) as ToolResult,
    /** The `mcp.call` events recorded so far, oldest first. */
    calls: (): Promise<MacsEvent[]> =>
      readEvents(fx.paths, { type: 'mcp.call' }),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The text of a tool result. */
export const textOf = (r: ToolResult): string =>
  r.content.map((c) => c.text ?? '').join('\n');
