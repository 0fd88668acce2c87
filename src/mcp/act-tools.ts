/**
 * The tools of `macs mcp` that act on a worker: `answer_request` and
 * `decide_approval` write an answer to the outbox (the bridge delivers it,
 * as it does `macs respond`'s), and `send_message` types into an idle
 * worker through the path of `macs send`. They keep those commands'
 * checks, and a refusal carries its reason to the model.
 */
import * as z from 'zod';
import { HUB_ANSWER_BY } from '../protocol/approval.js';
import { describeUntyped } from '../protocol/sanitize.js';
import {
  answerRequest,
  decideApproval,
  type AnswerResult,
} from '../operations/answer-request.js';
import { Refusal } from '../operations/refusal.js';
import {
  agentName,
  requestId,
  type RegisterTool,
  type ToolContext,
} from './tool.js';

/** `send_message`: default and longest wait for the agent to be idle. */
export const SEND_DEFAULT_SEC = 60;
const SEND_MAX_SEC = 600;
/** Longest answer or message text (an outbox file's limit, SPEC §4). */
const MAX_TEXT_CHARS = 256 * 1024;

/** Given by a hub only: who answered there (docs/remote.md). */
const hubBy = z
  .enum(HUB_ANSWER_BY)
  .optional()
  .describe(
    "set by a hub's macs only: who answered at the hub (its controller, or a person)",
  );

/** The answer written, or its refusal thrown for the registrar to report. */
function answered(
  result: AnswerResult,
): Extract<AnswerResult, { type: 'answered' }> {
  switch (result.type) {
    case 'answered':
      return result;
    case 'not-approval':
      throw new Refusal(
        `request '${result.request.id}' is a ${result.request.type} request, not an approval; answer it with answer_request`,
        result.request.agent,
      );
    case 'refused':
      throw new Refusal(result.reason, result.agent);
  }
}

/** Register answer_request, decide_approval and send_message. */
export function registerActTools(
  tool: RegisterTool,
  context: ToolContext,
): void {
  registerAnswerRequest(tool, context);
  registerDecideApproval(tool, context);
  registerSendMessage(tool, context);
}

/** `answer_request`: an answer to the outbox, as `macs respond` writes one. */
function registerAnswerRequest(tool: RegisterTool, context: ToolContext): void {
  const { paths, reader } = context;
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
        by: hubBy,
      },
    },
    async (args) => {
      const { request, written } = answered(
        await answerRequest(paths, reader, {
          id: args.id,
          instructions: args.instructions,
          ...(args.notes !== undefined ? { notes: args.notes } : {}),
          by: args.by ?? 'mcp:answer_request',
        }),
      );
      return {
        text: `answered ${request.id} (${request.agent}): the bridge types it into the worker once it is idle${written.untyped > 0 ? `; ${describeUntyped(written.untyped)}` : ''}`,
        data: {
          id: request.id,
          agent: request.agent,
          file: written.file,
          chars: written.chars,
          untyped: written.untyped,
        },
        agent: request.agent,
        requestId: request.id,
        event: { chars: written.chars },
      };
    },
  );
}

/** `decide_approval`: `allow: <reason>` or `deny: <reason>` as the answer. */
function registerDecideApproval(
  tool: RegisterTool,
  context: ToolContext,
): void {
  const { paths, reader } = context;
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
        by: hubBy,
      },
    },
    async (args) => {
      const { request, written } = answered(
        await decideApproval(paths, reader, {
          id: args.id,
          decision: args.decision,
          reason: args.reason,
          note: `decided ${args.by ? `at the hub (${args.by})` : 'by the controller through MCP'}`,
          by: args.by ?? 'mcp:decide_approval',
        }),
      );
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
}

/** `send_message`: typed into an idle worker through `macs send`'s path. */
function registerSendMessage(tool: RegisterTool, context: ToolContext): void {
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
      const outcome = await context.send({
        agent: args.agent,
        text: args.text,
        timeoutSec: args.timeout_sec ?? SEND_DEFAULT_SEC,
        signal,
      });
      if (outcome.type === 'cancelled')
        throw new Refusal('cancelled; nothing was typed', args.agent);
      const { data } = outcome;
      if (!data.confirmed)
        throw new Refusal(
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
}
