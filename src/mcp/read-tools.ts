/**
 * The tools of `macs mcp` that only look: `list_agents`, `list_requests` and
 * `get_request` read the status snapshot, `read_screen` an agent's tmux
 * pane. None of them writes to the home or types into a pane; each call is
 * still recorded (the registrar does that).
 */
import * as z from 'zod';
import { RequestStageSchema } from '../state/snapshot-schema.js';
import {
  agentLine,
  agentSummary,
  requestDetail,
  requestLine,
  requestSummary,
  requestText,
  requestWhole,
} from './tool-format.js';
import { findRequest } from '../operations/answer-request.js';
import { readAgentScreen } from '../operations/agent-screen.js';
import {
  remoteAgentLine,
  remoteRequestLine,
  remoteRequestSummary,
} from './remote-format.js';
import {
  agentName,
  requestId,
  type RegisterTool,
  type ToolContext,
} from './tool.js';

/** `read_screen`: default and most lines. */
const SCREEN_DEFAULT_LINES = 40;
const SCREEN_MAX_LINES = 2000;

/** Register list_agents, list_requests, get_request and read_screen. */
export function registerReadTools(
  tool: RegisterTool,
  context: ToolContext,
): void {
  const { paths, reader } = context;

  tool(
    'list_agents',
    {
      title: 'List agents',
      description:
        'Every agent of this macs home: name, preset, state (working, idle, approval, error, dead, unknown) and what said so (hook, screen, activity), its tmux pane, whether its bridge runs, its pending request ids, and for a Claude Code teammate its lead (teammate).',
      inputSchema: {},
    },
    async () => {
      const snapshot = await reader.read();
      const remote = await context.remote?.agents();
      const agents = [
        ...snapshot.agents.map((a) => agentSummary(a, snapshot.requests)),
        ...(remote?.agents ?? []),
      ];
      const lines = [
        ...snapshot.agents.map((a) => agentLine(a, snapshot.requests)),
        ...(remote?.agents ?? []).map(remoteAgentLine),
        ...(remote?.down ?? []),
      ];
      const text =
        lines.length === 0
          ? 'no agents yet (no bridge has supervised any in this home)'
          : lines.join('\n');
      return {
        text,
        data: {
          session: snapshot.session.status,
          // This machine's clock as it answers: a hub reads its hosts'
          // times through it (docs/remote.md, "Times and ages").
          now: new Date().toISOString(),
          agents,
          ...(remote ? { hostsDown: remote.down } : {}),
        },
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
        full: z
          .boolean()
          .optional()
          .describe(
            "each request's body, attributes and context too, as get_request gives them",
          ),
      },
    },
    async (args) => {
      const snapshot = await reader.read();
      const keep = (r: { agent: string; stage: string; type: string }) =>
        (args.agent === undefined || r.agent === args.agent) &&
        (args.stage === undefined || r.stage === args.stage) &&
        (args.type === undefined || r.type === args.type);
      const requests = snapshot.requests.filter(keep);
      const remote = await context.remote?.requests();
      const remoteRequests = (remote?.requests ?? []).filter(keep);
      const lines = [
        ...requests.map(requestLine),
        ...remoteRequests.map(remoteRequestLine),
        ...(remote?.down ?? []),
      ];
      return {
        text: lines.length === 0 ? 'no pending requests' : lines.join('\n'),
        data: {
          now: new Date().toISOString(),
          requests: [
            ...requests.map(args.full ? requestWhole : requestSummary),
            ...remoteRequests.map(remoteRequestSummary),
          ],
          ...(remote ? { hostsDown: remote.down } : {}),
        },
        ...(args.agent && !args.agent.includes('/')
          ? { agent: args.agent }
          : {}),
        event: { count: requests.length + remoteRequests.length },
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
      const request = await findRequest(paths, reader, args.id);
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
      const screen = await readAgentScreen({
        paths,
        agents: snapshot.agents,
        tmux: await context.tmux(),
        agent: args.agent,
        lines: args.lines ?? SCREEN_DEFAULT_LINES,
      });
      const { pane, lines: shown } = screen;
      return {
        text: shown.join('\n'),
        data: {
          agent: args.agent,
          pane,
          dead: screen.dead,
          width: screen.width,
          height: screen.height,
          lines: shown,
        },
        agent: args.agent,
        event: { pane, lines: shown.length },
      };
    },
  );
}
