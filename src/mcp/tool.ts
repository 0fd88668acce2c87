/**
 * How a tool of `macs mcp` is registered, and what every tool shares. A
 * tool handler returns text for the model and data for programs, or throws
 * a `Refusal` (operations/refusal.ts) with its reason; the registrar records each call as an
 * `mcp.call` event with `by: "mcp"` and turns any failure into an MCP tool
 * error carrying the reason, so one tool's mistake never ends the server.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { MacsError, errorWithHint } from '../errors.js';
import { emitSafely, type EventSink } from '../events/log.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { isSafeFileName, isValidAgentName } from '../protocol/ids.js';
import type { SnapshotReader } from '../state/snapshot.js';
import { readSessionRecord } from '../session/record.js';
import type { SharedSnapshotFeed } from '../state/snapshot-feed.js';
import type { TmuxClient } from '../tmux/client.js';
import { Refusal } from '../operations/refusal.js';
import type { SendOutcome } from '../operations/send-message.js';
import type { RemoteTools, ToolOutput } from '../operations/types.js';

/** The agent name `mcp.call` events of calls about no agent are filed under. */
export const MCP_EVENT_AGENT = 'mcp';

/** What the SDK gives a tool handler besides its arguments. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Register one tool; see `createToolRegistrar`. */
export type RegisterTool = <Shape extends z.ZodRawShape>(
  name: string,
  config: { title: string; description: string; inputSchema: Shape },
  handler: (
    args: z.infer<z.ZodObject<Shape>>,
    extra: ToolExtra,
  ) => Promise<ToolOutput>,
) => void;

/** What the tools of one server share: its home, as files, snapshots and tmux. */
export interface ToolContext {
  paths: HomePaths;
  reader: SnapshotReader;
  /** The session's tmux client, made at its first use. */
  tmux: () => Promise<TmuxClient>;
  /** `send_message`: the `macs send` path for one agent. */
  send: (params: {
    agent: string;
    text: string;
    timeoutSec: number;
    signal: AbortSignal;
  }) => Promise<SendOutcome>;
  /**
   * The home's change feed, running while a `wait_for_request` waits (the
   * status view's feed, src/state/snapshot-feed.ts).
   */
  snapshots: SharedSnapshotFeed;
  /** At a hub: the hosts' agents and requests (docs/remote.md). */
  remote?: RemoteTools;
}

/** Input fields several tools take. */
export const agentName = z
  .string()
  .min(1)
  .max(129)
  .describe(
    'an agent name as list_agents shows it, e.g. worker-1 (gpu1/worker-1 on another host)',
  );
export const requestId = z
  .string()
  .min(1)
  .max(265)
  .describe('a request id as list_requests shows it, e.g. worker-1-q-17');

export interface ToolRegistrarOptions {
  server: McpServer;
  events: EventSink;
  log: Logger;
  /**
   * Ids of the tool calls that reached a tool; the registrar adds each, and
   * `recordRefusedCalls` takes the others for calls the SDK refused.
   */
  reached: Set<string | number>;
  /**
   * Whether an agent name is one the home knows (a state or events file):
   * a failed call about any other name is filed under `mcp`, never creating
   * an events file for a name a caller made up.
   */
  isKnownAgent: (name: string) => Promise<boolean>;
  /** At a hub: a call about `<host>/…` answered by that host (remote-tools.ts). */
  forward?: RemoteTools['forward'];
  /**
   * A successful call that is not recorded as an `mcp.call` event (a hub's
   * own reads of a host, `macs mcp --from-hub`: docs/remote.md).
   */
  unrecorded?: (tool: string, out: ToolOutput) => boolean;
}

/** An agent the home knows: a state or events file, or the session's record. */
export function knownAgentCheck(
  paths: HomePaths,
): (name: string) => Promise<boolean> {
  return async (name) =>
    existsSync(path.join(paths.state, `${name}.json`)) ||
    existsSync(path.join(paths.events, `${name}.jsonl`)) ||
    Boolean(
      (await readSessionRecord(paths).catch(() => undefined))?.agents.some(
        (a) => a.name === name,
      ),
    );
}

/** A `RegisterTool` whose every call is recorded and whose errors are tool errors. */
export function createToolRegistrar(
  options: ToolRegistrarOptions,
): RegisterTool {
  const { server, events, log, reached, forward } = options;
  const known = options.isKnownAgent;
  return function tool<Shape extends z.ZodRawShape>(
    name: string,
    config: { title: string; description: string; inputSchema: Shape },
    handler: (
      args: z.infer<z.ZodObject<Shape>>,
      extra: ToolExtra,
    ) => Promise<ToolOutput>,
  ): void {
    const run = async (
      args: z.infer<z.ZodObject<Shape>>,
      extra: ToolExtra,
    ): Promise<CallToolResult> => {
      reached.add(extra.requestId);
      const started = Date.now();
      const about = (args as { agent?: unknown }).agent;
      const id = (args as { id?: unknown }).id;
      try {
        const out =
          (await forward?.(name, args)) ?? (await handler(args, extra));
        if (options.unrecorded?.(name, out))
          return {
            content: [{ type: 'text', text: out.text }],
            structuredContent: out.data,
          };
        await emitSafely(events, log, {
          agent: out.agent ?? MCP_EVENT_AGENT,
          type: 'mcp.call',
          ...(out.requestId ? { requestId: out.requestId } : {}),
          data: {
            by: 'mcp',
            tool: name,
            ok: true,
            ms: Date.now() - started,
            ...out.event,
          },
        });
        return {
          content: [{ type: 'text', text: out.text }],
          structuredContent: out.data,
        };
      } catch (error) {
        const reason = errorWithHint(error);
        if (!(error instanceof MacsError || error instanceof Refusal))
          log.error({ err: error, tool: name }, 'mcp tool failed');
        const named =
          error instanceof Refusal && error.agent
            ? error.agent
            : typeof about === 'string' && isValidAgentName(about)
              ? about
              : undefined;
        const agent =
          named !== undefined && (await known(named).catch(() => false))
            ? named
            : MCP_EVENT_AGENT;
        await emitSafely(events, log, {
          agent,
          type: 'mcp.call',
          ...(typeof id === 'string' && isSafeFileName(id)
            ? { requestId: id }
            : {}),
          data: {
            by: 'mcp',
            tool: name,
            ok: false,
            ms: Date.now() - started,
            ...(named !== undefined && agent !== named ? { agent: named } : {}),
            error: reason,
          },
        });
        return { content: [{ type: 'text', text: reason }], isError: true };
      }
    };
    server.registerTool(
      name,
      {
        title: config.title,
        description: config.description,
        inputSchema: config.inputSchema,
      },
      // The SDK validated the arguments against the schema.
      ((args: z.infer<z.ZodObject<Shape>>, extra: ToolExtra) =>
        run(args, extra)) as never,
    );
  };
}
