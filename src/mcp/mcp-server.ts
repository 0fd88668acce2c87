/**
 * `macs mcp`: the controller's tools over MCP (docs/mcp.md). One server is
 * bound to one macs home and reads it as every other command does: the
 * status snapshot for agents and requests, the outbox for answers (the
 * checks of `macs respond`), the deliverer of `macs send` for messages, and
 * tmux for screens: the operations of src/operations/, as every door. Each call is recorded as an `mcp.call` event with
 * `by: "mcp"`; a refusal is an MCP tool error carrying the reason.
 *
 * This module builds the server and its shared context; the tools live in
 * read-tools.ts (looking), act-tools.ts (answering, typing) and
 * wait-tool.ts (waiting for a request), registered through tool.ts.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MacsConfig } from '../config/schema.js';
import type { RemoteFleet } from '../remote/remote-fleet.js';
import { emitSafely, createEventLog } from '../events/log.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { readSessionRecord } from '../session/record.js';
import { createSnapshotReader } from '../state/snapshot.js';
import {
  createSnapshotFeed,
  shareSnapshotFeed,
} from '../state/snapshot-feed.js';
import { probeTmuxServer } from '../tmux/probe.js';
import { createTmuxClient, type TmuxClient } from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';
import { registerActTools } from './act-tools.js';
import { sendChangeNotices } from './change-notices.js';
import { registerReadTools } from './read-tools.js';
import { createRemoteTools } from '../operations/hub-tools.js';
import { recordRefusedCalls } from './refused-calls.js';
import {
  createToolRegistrar,
  knownAgentCheck,
  MCP_EVENT_AGENT,
  type ToolContext,
} from './tool.js';
import { registerWaitTool } from './wait-tool.js';

export interface MacsMcpOptions {
  paths: HomePaths;
  /** The developer log. */
  log: Logger;
  config: MacsConfig;
  runTmux: RunTmux;
  /** `--tmux-socket`; else the session's server (`.macs/session.json`). */
  socket?: string;
  version: string;
  /** At a hub: a live fleet of the config's hosts (docs/remote.md). */
  fleet?: RemoteFleet;
  /**
   * Served to a hub (`macs mcp --from-hub`): the hub's reads (listing,
   * reading, a wait that hands over no request) are not events; its
   * answers, messages and refused calls are.
   */
  forHub?: boolean;
}

/** The tools a hub reads a host with (no change on the host). */
const HUB_READS = new Set([
  'list_agents',
  'list_requests',
  'get_request',
  'read_screen',
  'wait_for_request',
]);

export interface MacsMcpServer {
  server: McpServer;
  /**
   * The transport to connect the server to: `transport`, with the calls the
   * SDK refuses before a tool runs (bad input, an unknown tool) recorded as
   * `mcp.call` events too.
   */
  recording: (transport: Transport) => Transport;
}

/** Build the MCP server for one home (connect it to `recording(transport)` to serve). */
export function createMacsMcpServer(options: MacsMcpOptions): MacsMcpServer {
  const { paths, log, config } = options;
  const events = createEventLog(paths);
  /** Ids of the tool calls that reached a tool (the others were refused by the SDK). */
  const reached = new Set<string | number>();
  let tmuxClient: TmuxClient | undefined;
  const context: ToolContext = {
    paths,
    reader: createSnapshotReader(paths, {
      eventLimit: 1,
      prices: config.prices,
      serverUp: probeTmuxServer(options.runTmux),
    }),
    tmux: async () => {
      if (tmuxClient) return tmuxClient;
      const socket =
        options.socket ??
        (await readSessionRecord(paths).catch(() => undefined))?.socket;
      tmuxClient = createTmuxClient(socket, options.runTmux);
      return tmuxClient;
    },
    // The typist is loaded when a message is sent, not when the server starts.
    send: async ({ agent, text, timeoutSec, signal }) =>
      (await import('../operations/send-message.js')).sendToAgent({
        agent,
        text,
        paths,
        config,
        runTmux: options.runTmux,
        ...(options.socket ? { socket: options.socket } : {}),
        timeoutSec,
        signal,
      }),
    snapshots: shareSnapshotFeed(() =>
      createSnapshotFeed({
        paths,
        reader: createSnapshotReader(paths, {
          eventLimit: 1,
          serverUp: probeTmuxServer(options.runTmux),
        }),
        onError: (error) => log.warn({ err: error }, 'snapshot read failed'),
      }),
    ),
    ...(options.fleet
      ? { remote: createRemoteTools(options.fleet, paths) }
      : {}),
  };

  const server = new McpServer(
    { name: 'macs', version: options.version },
    {
      instructions:
        'macs supervises worker coding agents in tmux panes. Call wait_for_request to block until a worker asks something, get_request to read it, then answer_request (or decide_approval for type=approval). list_agents and read_screen show what the workers are doing; send_message types a message into an idle worker.',
    },
  );

  // tools/list lists the tools in the order they are registered.
  const tool = createToolRegistrar({
    server,
    events,
    log,
    reached,
    isKnownAgent: knownAgentCheck(paths),
    ...(context.remote ? { forward: context.remote.forward } : {}),
    ...(options.forHub
      ? {
          // A wait that hands a request over is kept: the hub picked it up.
          unrecorded: (name: string, out: { requestId?: string }) =>
            HUB_READS.has(name) &&
            !(name === 'wait_for_request' && out.requestId),
        }
      : {}),
  });
  registerReadTools(tool, context);
  registerActTools(tool, context);
  registerWaitTool(tool, context);
  if (options.forHub) sendChangeNotices(server, context.snapshots, log);

  return {
    server,
    recording: (transport) =>
      recordRefusedCalls(transport, reached, (tool, error) =>
        emitSafely(events, log, {
          agent: MCP_EVENT_AGENT,
          type: 'mcp.call',
          data: { by: 'mcp', tool, ok: false, error },
        }),
      ),
  };
}
