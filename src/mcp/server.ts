/**
 * `macs mcp`: the controller's tools over MCP (docs/mcp.md). One server is
 * bound to one macs home and reads it as every other command does: the
 * status snapshot for agents and requests, the outbox for answers (the
 * checks of `macs respond`), the deliverer of `macs send` for messages, and
 * tmux for screens. Each call is recorded as an `mcp.call` event with
 * `by: "mcp"`; a refusal is an MCP tool error carrying the reason.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { MacsConfig } from '../config/schema.js';
import { MacsError, errorMessage } from '../errors.js';
import { emitSafely, createEventLog } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import { isSafeFileName, isValidAgentName } from '../protocol/ids.js';
import { splitResponse } from '../protocol/response.js';
import { sanitizeText } from '../protocol/sanitize.js';
import { readSessionRecord } from '../session/record.js';
import { writeOutboxAnswer } from '../state/outbox.js';
import { requestIdsDir } from '../state/request-ids.js';
import type { HomePaths } from '../home/paths.js';
import {
  createSnapshotReader,
  type AgentSnapshot,
  type RequestSnapshot,
} from '../state/snapshot.js';
import { RequestStageSchema } from '../state/snapshot-schema.js';
import {
  createTmuxClient,
  PaneNotFoundError,
  type TmuxClient,
} from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';
import type { CommandContext } from '../cli/common.js';
import type { SendOutcome, SendParams } from '../cli/send.js';

/** The agent name `mcp.call` events of calls about no agent are filed under. */
export const MCP_EVENT_AGENT = 'mcp';
/**
 * `wait_for_request`: default and longest wait, in seconds. The default stays
 * under the 60 s many MCP clients allow a call before they give up on it.
 */
export const WAIT_DEFAULT_SEC = 45;
export const WAIT_MAX_SEC = 600;
/** How often a waiting `wait_for_request` sends progress (with a token). */
const WAIT_PROGRESS_MS = 10_000;
/** `read_screen`: default and most lines. */
export const SCREEN_DEFAULT_LINES = 40;
export const SCREEN_MAX_LINES = 2000;
/** `send_message`: default and longest wait for the agent to be idle. */
export const SEND_DEFAULT_SEC = 60;
export const SEND_MAX_SEC = 600;
/** Longest answer or message text (an outbox file's limit, SPEC §4). */
const MAX_TEXT_CHARS = 256 * 1024;

export interface MacsMcpOptions {
  ctx: CommandContext;
  /**
   * `send_message`: the `macs send` path (src/cli/send.ts), given by the
   * command that starts the server so that mcp/ does not import cli/.
   */
  sendToAgent: (params: SendParams) => Promise<SendOutcome>;
  config: MacsConfig;
  runTmux: RunTmux;
  /** `--tmux-socket`; else the session's server (`.macs/session.json`). */
  socket?: string;
  /** How often `wait_for_request` reads the home (default 250 ms). */
  pollMs?: number;
  version: string;
}

/** What the SDK gives a tool handler besides its arguments. */
type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a tool handler gives back: text for the model, data for programs. */
interface ToolOutput {
  text: string;
  data: Record<string, unknown>;
  /** The agent the call was about (its events file), when there is one. */
  agent?: string;
  requestId?: string;
  /** Extra fields for the `mcp.call` event. */
  event?: Record<string, unknown>;
}

/** A refusal with its reason, shown to the model as a tool error. */
export class ToolRefusal extends Error {
  constructor(
    message: string,
    readonly agent?: string,
  ) {
    super(message);
    this.name = 'ToolRefusal';
  }
}

const agentName = z
  .string()
  .min(1)
  .max(64)
  .describe('an agent name as list_agents shows it, e.g. worker-1');
const requestId = z
  .string()
  .min(1)
  .max(200)
  .describe('a request id as list_requests shows it, e.g. worker-1-q-17');

function requestSummary(r: RequestSnapshot): Record<string, unknown> {
  return {
    id: r.id,
    agent: r.agent,
    type: r.type,
    stage: r.stage,
    priority: r.priority,
    waitingForAnswer: r.waitingForPerson,
    backend: r.backend,
    ageSec: Math.round(r.ageMs / 1000),
    firstLine: r.firstLine,
  };
}

function requestLine(r: RequestSnapshot): string {
  return `${r.id}  agent=${r.agent} type=${r.type} stage=${r.stage}${r.waitingForPerson ? ' (waiting for an answer)' : ''} age=${Math.round(r.ageMs / 1000)}s: ${r.firstLine}`;
}

function requestDetail(r: RequestSnapshot): Record<string, unknown> {
  return {
    ...requestSummary(r),
    workerId: r.workerId,
    detectedAt: r.detectedAt,
    body: r.body,
    attributes: r.attributes,
    context: r.context,
    answer: r.answer,
  };
}

function requestText(r: RequestSnapshot): string {
  const lines = [
    `request ${r.id} from ${r.agent} (type ${r.type}, priority ${r.priority}, stage ${r.stage}${r.waitingForPerson ? ', waiting for an answer' : ''})`,
    '',
    r.body,
  ];
  if (r.context !== null)
    lines.push('', 'context:', JSON.stringify(r.context, null, 2));
  if (r.answer)
    lines.push('', `answer (${r.answer.stage}):`, r.answer.instructions);
  return lines.join('\n');
}

function agentSummary(
  a: AgentSnapshot,
  requests: readonly RequestSnapshot[],
): Record<string, unknown> {
  return {
    name: a.name,
    preset: a.preset,
    state: a.state,
    stateSource: a.stateSource,
    stateAgeSec: Math.round(a.stateAgeMs / 1000),
    pane: a.pane,
    paused: a.paused,
    bridgeRunning: a.bridge.running,
    pendingRequests: requests
      .filter((r) => r.agent === a.name)
      .map((r) => r.id),
  };
}

/** The pane of an agent: its state file's, else the session record's. */
async function paneOf(
  paths: HomePaths,
  agent: string,
  agents: readonly AgentSnapshot[],
): Promise<string | undefined> {
  const fromState = agents.find((a) => a.name === agent)?.pane;
  if (fromState) return fromState;
  const record = await readSessionRecord(paths).catch(() => undefined);
  return record?.agents.find((a) => a.name === agent)?.pane;
}

/** The answer text `macs respond` would be given: instructions, then notes. */
export function composeAnswer(instructions: string, notes?: string): string {
  const parsed = splitResponse(instructions);
  if (parsed.hasMarkers || parsed.notes !== '')
    throw new ToolRefusal(
      'the instructions hold a NOTES: header or response markers; give the notes in `notes` and plain text in `instructions`',
    );
  if (!parsed.instructions.trim())
    throw new ToolRefusal('the instructions are empty; nothing was written');
  if (!notes?.trim()) return `${instructions.trim()}\n`;
  return `WORKER INSTRUCTIONS:\n${instructions.trim()}\n\nNOTES:\n${notes.trim()}\n`;
}

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
  const { ctx, config } = options;
  const { paths } = ctx;
  const log: Logger = ctx.log;
  const reader = createSnapshotReader(paths, { eventLimit: 1 });
  const events = createEventLog(paths);
  const pollMs = options.pollMs ?? 250;
  /** Ids of the tool calls that reached a tool (the others were refused by the SDK). */
  const reached = new Set<string | number>();
  let tmuxClient: TmuxClient | undefined;
  const tmux = async (): Promise<TmuxClient> => {
    if (tmuxClient) return tmuxClient;
    const socket =
      options.socket ??
      (await readSessionRecord(paths).catch(() => undefined))?.socket;
    tmuxClient = createTmuxClient(socket, options.runTmux);
    return tmuxClient;
  };

  const server = new McpServer(
    { name: 'macs', version: options.version },
    {
      instructions:
        'macs supervises worker coding agents in tmux panes. Call wait_for_request to block until a worker asks something, get_request to read it, then answer_request (or decide_approval for type=approval). list_agents and read_screen show what the workers are doing; send_message types a message into an idle worker.',
    },
  );

  /** Register a tool whose every call is recorded and whose errors are tool errors. */
  function tool<Shape extends z.ZodRawShape>(
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
        const out = await handler(args, extra);
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
        const reason =
          error instanceof MacsError && error.hint
            ? `${error.message} (hint: ${error.hint})`
            : errorMessage(error);
        if (!(error instanceof MacsError || error instanceof ToolRefusal))
          log.error({ err: error, tool: name }, 'mcp tool failed');
        const agent =
          error instanceof ToolRefusal && error.agent
            ? error.agent
            : typeof about === 'string' && isValidAgentName(about)
              ? about
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
  }

  async function findRequest(id: string): Promise<RequestSnapshot> {
    if (!isSafeFileName(id))
      throw new ToolRefusal(`'${id}' is not a request id`);
    const snapshot = await reader.read();
    const found = snapshot.requests.find((r) => r.id === id);
    if (found) return found;
    // A finished request's id stays claimed for its agent (.macs/ids/<id>).
    const owner = (
      await readFile(path.join(requestIdsDir(paths), id), 'utf8').catch(
        () => '',
      )
    ).trim();
    if (owner && isValidAgentName(owner))
      throw new ToolRefusal(
        `no pending request '${id}': the request of ${owner} is finished (answered, dismissed or expired) and is not answered again; list_requests shows the pending ones`,
        owner,
      );
    throw new ToolRefusal(
      `no pending request '${id}': no agent of this home made it; list_requests shows the pending ones`,
    );
  }

  /** Write an answer as `macs respond` does; a refusal says why. */
  async function writeAnswer(
    request: RequestSnapshot,
    text: string,
    by: 'mcp:answer_request' | 'mcp:decide_approval',
  ): Promise<{ file: string; chars: number }> {
    // Answered already (its answer waits for delivery, or is on its way):
    // never a second answer, whatever the outbox holds by now.
    if (request.answer || !request.waitingForPerson)
      throw new ToolRefusal(
        request.answer
          ? `request '${request.id}' is already answered (stage ${request.stage}); it is not answered twice`
          : `request '${request.id}' is not waiting for an answer here (stage ${request.stage}, answerer ${request.backend ?? 'none yet'})`,
        request.agent,
      );
    const result = await writeOutboxAnswer(paths, request.id, text, { by });
    switch (result.type) {
      case 'written':
        return { file: result.file, chars: result.chars };
      case 'bad-id':
        throw new ToolRefusal(`'${request.id}' is not a request id`);
      case 'empty':
        throw new ToolRefusal('the answer is empty; nothing was written');
      case 'not-pending':
        throw new ToolRefusal(
          `request '${request.id}' is not waiting in the inbox (stage ${request.stage}, answerer ${request.backend ?? 'none yet'}): it is being answered elsewhere or was already answered`,
          request.agent,
        );
      case 'already-answered':
        throw new ToolRefusal(
          `request '${request.id}' already has an answer waiting to be delivered; it is not answered twice`,
          request.agent,
        );
    }
  }

  tool(
    'list_agents',
    {
      title: 'List agents',
      description:
        'Every agent of this macs home: name, preset, state (working, idle, approval, error, dead, unknown) and what said so (hook, screen, activity), its tmux pane, whether its bridge runs, and its pending request ids.',
      inputSchema: {},
    },
    async () => {
      const snapshot = await reader.read();
      const agents = snapshot.agents.map((a) =>
        agentSummary(a, snapshot.requests),
      );
      const text =
        agents.length === 0
          ? 'no agents yet (no bridge has supervised any in this home)'
          : snapshot.agents
              .map((a) => {
                const pending = snapshot.requests.filter(
                  (r) => r.agent === a.name,
                );
                return `${a.name}  preset=${a.preset} state=${a.state} (from ${a.stateSource}) pane=${a.pane ?? '-'}${a.paused ? ' paused' : ''}${a.bridge.running ? '' : ' bridge-down'} pending=${pending.length === 0 ? '-' : pending.map((r) => r.id).join(',')}`;
              })
              .join('\n');
      return {
        text,
        data: { session: snapshot.session.status, agents },
        event: { count: agents.length },
      };
    },
  );

  tool(
    'list_requests',
    {
      title: 'List pending requests',
      description:
        'Pending requests of the workers, most urgent first, optionally only those of one agent, stage or type. waitingForAnswer: the request waits in the inbox for answer_request or decide_approval.',
      inputSchema: {
        agent: agentName.optional(),
        stage: RequestStageSchema.optional().describe(
          'only requests at this stage (detected, routed, answered, delivering, …)',
        ),
        type: z
          .string()
          .max(64)
          .optional()
          .describe(
            'only requests of this type: question, approval, review, done, …',
          ),
      },
    },
    async (args) => {
      const snapshot = await reader.read();
      const requests = snapshot.requests.filter(
        (r) =>
          (args.agent === undefined || r.agent === args.agent) &&
          (args.stage === undefined || r.stage === args.stage) &&
          (args.type === undefined || r.type === args.type),
      );
      return {
        text:
          requests.length === 0
            ? 'no pending requests'
            : requests.map(requestLine).join('\n'),
        data: { requests: requests.map(requestSummary) },
        ...(args.agent ? { agent: args.agent } : {}),
        event: { count: requests.length },
      };
    },
  );

  tool(
    'get_request',
    {
      title: 'Read a request',
      description:
        "A pending request in full: its body, attributes, stage, and the context packet macs gathered (the worker's folder, git branch, screen and earlier requests).",
      inputSchema: { id: requestId },
    },
    async (args) => {
      const request = await findRequest(args.id);
      return {
        text: requestText(request),
        data: { request: requestDetail(request) },
        agent: request.agent,
        requestId: request.id,
      };
    },
  );

  tool(
    'read_screen',
    {
      title: "Read an agent's screen",
      description:
        "What an agent's tmux pane shows now, as a person sees it (rendered text, no colours), its last `lines` lines.",
      inputSchema: {
        agent: agentName,
        lines: z
          .number()
          .int()
          .min(1)
          .max(SCREEN_MAX_LINES)
          .optional()
          .describe(
            `how many lines from the bottom (default ${SCREEN_DEFAULT_LINES}); more than the pane's height reaches into its scrollback`,
          ),
      },
    },
    async (args) => {
      const snapshot = await reader.read();
      const pane = await paneOf(paths, args.agent, snapshot.agents);
      if (!pane)
        throw new ToolRefusal(
          `unknown agent '${args.agent}'; list_agents shows the agents`,
        );
      const lines = args.lines ?? SCREEN_DEFAULT_LINES;
      const client = await tmux();
      let info;
      try {
        info = await client.paneInfo(pane);
      } catch (error) {
        if (error instanceof PaneNotFoundError)
          throw new ToolRefusal(
            `agent '${args.agent}' has no pane any more (${pane} is gone)`,
            args.agent,
          );
        throw error;
      }
      const raw = await client.capturePane(
        pane,
        lines > info.height ? { start: -(lines - info.height) } : {},
      );
      const all = raw.replace(/\n$/, '').split('\n');
      while (all.length > 0 && !all[all.length - 1]?.trim()) all.pop();
      const shown = all.slice(-lines).map((l) => sanitizeText(l).trimEnd());
      return {
        text: shown.join('\n'),
        data: {
          agent: args.agent,
          pane,
          dead: info.dead,
          width: info.width,
          height: info.height,
          lines: shown,
        },
        agent: args.agent,
        event: { pane, lines: shown.length },
      };
    },
  );

  tool(
    'answer_request',
    {
      title: 'Answer a request',
      description:
        'Answer a pending request waiting in the inbox. `instructions` are typed into the worker once it is idle (as one paste, then submit); `notes` are kept for people and never typed. Delivered by the bridge exactly as `macs respond` answers are; a request is answered once.',
      inputSchema: {
        id: requestId,
        instructions: z
          .string()
          .min(1)
          .max(MAX_TEXT_CHARS)
          .describe('what the worker is told'),
        notes: z
          .string()
          .max(MAX_TEXT_CHARS)
          .optional()
          .describe(
            'for people reading the archive; never typed into the worker',
          ),
      },
    },
    async (args) => {
      const request = await findRequest(args.id);
      const text = composeAnswer(args.instructions, args.notes);
      const written = await writeAnswer(request, text, 'mcp:answer_request');
      return {
        text: `answered ${request.id} (${request.agent}): the bridge types it into the worker once it is idle`,
        data: {
          id: request.id,
          agent: request.agent,
          file: written.file,
          chars: written.chars,
        },
        agent: request.agent,
        requestId: request.id,
        event: { chars: written.chars },
      };
    },
  );

  tool(
    'decide_approval',
    {
      title: 'Decide an approval',
      description:
        'Allow or deny a pending type=approval request, with a reason the worker is told. Given as the answer `allow: <reason>` or `deny: <reason>`, through the same path as answer_request.',
      inputSchema: {
        id: requestId,
        decision: z.enum(['allow', 'deny']),
        reason: z
          .string()
          .min(1)
          .max(MAX_TEXT_CHARS)
          .describe('why; the worker sees it'),
      },
    },
    async (args) => {
      const request = await findRequest(args.id);
      if (request.type !== 'approval')
        throw new ToolRefusal(
          `request '${request.id}' is a ${request.type} request, not an approval; answer it with answer_request`,
          request.agent,
        );
      const text = composeAnswer(
        `${args.decision}: ${args.reason.trim()}`,
        `decided by the controller through MCP: ${args.decision}`,
      );
      const written = await writeAnswer(request, text, 'mcp:decide_approval');
      return {
        text: `${args.decision === 'allow' ? 'allowed' : 'denied'} ${request.id} (${request.agent}): ${request.attributes.hook ? `the bridge answers the agent's waiting ${request.attributes.hook} hook at once, typing nothing` : 'the bridge tells the worker once it is idle'}`,
        data: {
          id: request.id,
          agent: request.agent,
          decision: args.decision,
          file: written.file,
        },
        agent: request.agent,
        requestId: request.id,
        event: { decision: args.decision },
      };
    },
  );

  tool(
    'send_message',
    {
      title: 'Send a message to a worker',
      description:
        'Type a message into an idle worker, as `macs send` does: wait until it is idle (never into a busy agent or an open dialog), paste, submit, confirm. For requests use answer_request instead.',
      inputSchema: {
        agent: agentName,
        text: z.string().min(1).max(MAX_TEXT_CHARS),
        timeout_sec: z
          .number()
          .int()
          .min(1)
          .max(SEND_MAX_SEC)
          .optional()
          .describe(
            `give up when the worker is not idle within this many seconds (default ${SEND_DEFAULT_SEC})`,
          ),
      },
    },
    async (args, { signal }) => {
      const outcome = await options.sendToAgent({
        agent: args.agent,
        text: args.text,
        ctx,
        config,
        runTmux: options.runTmux,
        ...(options.socket ? { socket: options.socket } : {}),
        timeoutSec: args.timeout_sec ?? SEND_DEFAULT_SEC,
        signal,
      });
      if (outcome.type === 'cancelled')
        throw new ToolRefusal('cancelled; nothing was typed', args.agent);
      const { data } = outcome;
      if (!data.confirmed)
        throw new ToolRefusal(
          `typed ${data.chars} chars into ${outcome.shown} and pressed ${outcome.submitKey} ${String(data.submits ?? 1)} time(s), but saw no sign the agent took them; not typed again (read_screen shows the pane)`,
          args.agent,
        );
      return {
        text: `sent ${data.chars} chars to ${outcome.shown}: ${outcome.how}`,
        data: { agent: args.agent, ...data },
        agent: args.agent,
        event: { chars: data.chars, pane: data.pane },
      };
    },
  );

  tool(
    'wait_for_request',
    {
      title: 'Wait for a request',
      description: `Block until a worker makes a new request that waits for an answer (optionally of one agent or type), then return it in full, as get_request does. Returns with request null when none came within timeout_sec (default ${WAIT_DEFAULT_SEC}, at most ${WAIT_MAX_SEC}). With include_pending, a request already waiting returns at once.`,
      inputSchema: {
        agent: agentName.optional(),
        type: z.string().max(64).optional(),
        timeout_sec: z.number().int().min(1).max(WAIT_MAX_SEC).optional(),
        include_pending: z
          .boolean()
          .optional()
          .describe(
            'also return a request that was already waiting when the call began',
          ),
      },
    },
    async (args, extra) => {
      const { signal } = extra;
      const timeoutSec = args.timeout_sec ?? WAIT_DEFAULT_SEC;
      // With a progress token, the client hears that the wait goes on (at
      // once, then every WAIT_PROGRESS_MS), so a client that resets its
      // timeout on progress waits as long as asked.
      const token = extra._meta?.progressToken;
      let beats = 0;
      let nextBeat = 0;
      const beat = async () => {
        if (token === undefined || Date.now() < nextBeat) return;
        nextBeat = Date.now() + WAIT_PROGRESS_MS;
        beats += 1;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken: token,
              progress: beats,
              message: 'waiting for a request',
            },
          })
          .catch(() => undefined);
      };
      const matches = (r: RequestSnapshot) =>
        r.waitingForPerson &&
        (args.agent === undefined || r.agent === args.agent) &&
        (args.type === undefined || r.type === args.type);
      const seen = new Set<string>();
      if (!args.include_pending)
        for (const r of (await reader.read()).requests)
          if (matches(r)) seen.add(r.id);
      const deadline = Date.now() + timeoutSec * 1000;
      const about = args.agent ? { agent: args.agent } : {};
      for (;;) {
        if (signal.aborted)
          throw new ToolRefusal('cancelled by the client', args.agent);
        await beat();
        const found = (await reader.read()).requests.find(
          (r) => matches(r) && !seen.has(r.id),
        );
        if (found)
          return {
            text: requestText(found),
            data: { request: requestDetail(found), timedOut: false },
            agent: found.agent,
            requestId: found.id,
          };
        const left = deadline - Date.now();
        if (left <= 0)
          return {
            text: `no new request within ${timeoutSec}s; call wait_for_request again to keep waiting`,
            data: { request: null, timedOut: true },
            ...about,
            event: { timedOut: true },
          };
        await sleep(Math.min(pollMs, left), signal);
      }
    },
  );

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

/**
 * A transport that passes every message through and, when the answer to a
 * `tools/call` goes out for a call that never reached a tool, reports it.
 */
function recordRefusedCalls(
  inner: Transport,
  reached: Set<string | number>,
  report: (tool: string, error: string) => Promise<void>,
): Transport {
  const calls = new Map<string | number, string>();
  const outer: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    async send(message, sendOptions) {
      const id = 'id' in message ? message.id : undefined;
      if (id !== undefined && ('result' in message || 'error' in message)) {
        const tool = calls.get(id);
        calls.delete(id);
        if (tool !== undefined && !reached.delete(id)) {
          const text =
            'error' in message
              ? message.error.message
              : ((message.result as { content?: { text?: string }[] })
                  .content?.[0]?.text ?? 'refused');
          await report(tool, text);
        }
      }
      return inner.send(message, sendOptions);
    },
  };
  if (inner.setProtocolVersion)
    outer.setProtocolVersion = (version) => inner.setProtocolVersion?.(version);
  inner.onclose = () => outer.onclose?.();
  inner.onerror = (error) => outer.onerror?.(error);
  inner.onmessage = (message, extra) => {
    if (
      'method' in message &&
      'id' in message &&
      message.method === 'tools/call'
    ) {
      const params = message.params as { name?: unknown } | undefined;
      calls.set(
        message.id,
        typeof params?.name === 'string' ? params.name : '?',
      );
    } else if (
      'method' in message &&
      message.method === 'notifications/cancelled'
    ) {
      const id = (message.params as { requestId?: string | number } | undefined)
        ?.requestId;
      if (id !== undefined) {
        calls.delete(id);
        reached.delete(id);
      }
    }
    outer.onmessage?.(message, extra);
  };
  return outer;
}

/** Sleep, ending early (without throwing) when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
