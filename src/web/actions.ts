/**
 * What a person can do from the page of `macs web`, each through the code
 * the command line and the MCP tools use: answers and approval decisions
 * are written to the outbox with `macs respond`'s checks (mcp/requests.ts;
 * the bridge delivers them, re-checking an approval's prompt first);
 * dismissals, pauses and messages go through the functions of `macs
 * dismiss`, `macs pause` and `macs send`, given by the command. Each is
 * recorded as a `web.action` event with `by: "web"`.
 *
 * A host's request (`<host>/<id>`, docs/remote.md) is answered and decided
 * by the host itself through the forwarding of `macs mcp` at a hub
 * (mcp/remote-tools.ts: an answer to an unreachable host is kept and
 * delivered once), and dismissed by `macs dismiss`'s own forwarding. Its
 * event is filed under `web`, the host's name in `data.remote`.
 */
import * as z from 'zod';
import { errorMessage, MacsError } from '../errors.js';
import { emitSafely, type EventSink } from '../events/log.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { isSafeFileName, isValidAgentName } from '../protocol/ids.js';
import { describeUntyped } from '../protocol/sanitize.js';
import { composeAnswer, findRequest, writeAnswer } from '../mcp/requests.js';
import { ToolRefusal } from '../mcp/tool.js';
import type { RemoteTools } from '../mcp/types.js';
import { splitRemoteName } from '../remote/names.js';
import type { SnapshotReader } from '../state/snapshot.js';
import type { ActionReply } from './messages.js';

/** Longest answer, reason or message (an outbox file's limit, SPEC §4). */
const MAX_TEXT_CHARS = 256 * 1024;
/** How long a message waits for its agent to be idle. */
export const WEB_SEND_TIMEOUT_SEC = 60;
/** The agent `web.action` events about no agent are filed under. */
const WEB_EVENT_AGENT = 'web';

const text = z.string().min(1).max(MAX_TEXT_CHARS);
/** A host's request id `<host>/<id>` (its parts checked). */
function isRemoteId(id: string): boolean {
  return typeof splitRemoteName(id, 'request') === 'object';
}

const id = z
  .string()
  .min(1)
  .max(200)
  .refine((v) => isSafeFileName(v) || isRemoteId(v), 'not a request id');
/** A host's agent `<host>/<agent>` (its parts checked). */
function isRemoteAgent(name: string): boolean {
  return typeof splitRemoteName(name, 'agent') === 'object';
}

const agent = z
  .string()
  .min(1)
  .max(129)
  .refine((v) => isValidAgentName(v) || isRemoteAgent(v), 'not an agent name');

export const ACTION_SCHEMAS = {
  answer: z.strictObject({ id, text, notes: text.optional() }),
  decide: z.strictObject({
    id,
    decision: z.enum(['allow', 'deny']),
    reason: text,
  }),
  dismiss: z.strictObject({ id, reason: text.optional() }),
  pause: z.strictObject({ agent }),
  resume: z.strictObject({ agent }),
  send: z.strictObject({ agent, text }),
} as const;

export type ActionName = keyof typeof ACTION_SCHEMAS;
type ActionInput<N extends ActionName> = z.infer<(typeof ACTION_SCHEMAS)[N]>;

/** What the command gives the actions (functions of cli/, which web/ does not import). */
export interface WebActionDeps {
  paths: HomePaths;
  reader: SnapshotReader;
  events: EventSink;
  log: Logger;
  /** `macs pause` / `macs resume` (cli/pause.ts pauseDelivery; a host's agent: its own macs). */
  setPaused: (agent: string, paused: boolean) => Promise<void>;
  /** `macs dismiss` (cli/dismiss.ts): the outcome for a person. */
  dismiss: (id: string, reason: string) => Promise<ActionReply>;
  /** `macs send` (cli/send.ts sendToAgent); absent without `--allow-send`. */
  send?: (
    agent: string,
    text: string,
    signal: AbortSignal,
  ) => Promise<ActionReply>;
  /**
   * A tool call about `<host>/…` answered by the host (web/fleet.ts
   * `WebHosts.forward`); absent when the config has no hosts.
   */
  forward?: RemoteTools['forward'];
  /** Read the home again now (the feed), so the page sees the change. */
  refresh: () => Promise<void>;
}

interface Done extends ActionReply {
  agent?: string;
  requestId?: string;
  /** The `<host>/…` name the action was about (its event is filed under `web`). */
  remote?: string;
}

/** A host's request handled by the host, through the hub's forwarding. */
async function forwardToHost(
  deps: WebActionDeps,
  tool: string,
  args: Record<string, unknown> & { id: string },
): Promise<Done> {
  if (!deps.forward)
    throw new ToolRefusal(
      `'${args.id}' names a host's request, but this home's macs.config.json has no hosts`,
    );
  // A person in the page: the host records the answer as theirs.
  const output = await deps.forward(tool, args, 'hub:web');
  if (!output) throw new ToolRefusal(`'${args.id}' is not a request of a host`);
  return { ok: true, message: output.text, remote: args.id };
}

async function answer(
  deps: WebActionDeps,
  input: ActionInput<'answer'>,
): Promise<Done> {
  if (isRemoteId(input.id))
    return forwardToHost(deps, 'answer_request', {
      id: input.id,
      instructions: input.text,
      ...(input.notes ? { notes: input.notes } : {}),
    });
  const request = await findRequest(deps.paths, deps.reader, input.id);
  const written = await writeAnswer(
    deps.paths,
    request,
    composeAnswer(input.text, input.notes),
    'web:answer',
  );
  return {
    ok: true,
    message: `answered ${request.id} (${written.chars} chars): the bridge types it into ${request.agent} once it is idle${written.untyped > 0 ? `; ${describeUntyped(written.untyped)}` : ''}`,
    agent: request.agent,
    requestId: request.id,
  };
}

async function decide(
  deps: WebActionDeps,
  input: ActionInput<'decide'>,
): Promise<Done> {
  // The host checks it is an approval, and re-checks its prompt, itself.
  if (isRemoteId(input.id))
    return forwardToHost(deps, 'decide_approval', {
      id: input.id,
      decision: input.decision,
      reason: input.reason.trim(),
    });
  const request = await findRequest(deps.paths, deps.reader, input.id);
  if (request.type !== 'approval')
    throw new ToolRefusal(
      `request '${request.id}' is a ${request.type} request, not an approval; answer it instead`,
      request.agent,
    );
  await writeAnswer(
    deps.paths,
    request,
    composeAnswer(
      `${input.decision}: ${input.reason.trim()}`,
      `decided by a person in macs web: ${input.decision}`,
    ),
    'web:decide_approval',
  );
  return {
    ok: true,
    message: `${input.decision === 'allow' ? 'allowed' : 'denied'} ${request.id} (${request.agent}); the bridge checks the prompt is still the one asked about before it answers`,
    agent: request.agent,
    requestId: request.id,
  };
}

async function perform(
  deps: WebActionDeps,
  name: ActionName,
  input: unknown,
  signal: AbortSignal,
): Promise<Done> {
  switch (name) {
    case 'answer':
      return answer(deps, ACTION_SCHEMAS.answer.parse(input));
    case 'decide':
      return decide(deps, ACTION_SCHEMAS.decide.parse(input));
    case 'dismiss': {
      const args = ACTION_SCHEMAS.dismiss.parse(input);
      const reply = await deps.dismiss(
        args.id,
        args.reason?.trim() || 'dismissed in macs web',
      );
      return isRemoteId(args.id)
        ? { ...reply, remote: args.id }
        : { ...reply, requestId: args.id };
    }
    case 'pause':
    case 'resume': {
      const args = ACTION_SCHEMAS[name].parse(input);
      await deps.setPaused(args.agent, name === 'pause');
      return {
        ok: true,
        message:
          name === 'pause'
            ? `delivery to ${args.agent} paused: its answers wait (kept) until resumed`
            : `delivery to ${args.agent} resumed`,
        ...(isRemoteAgent(args.agent)
          ? { remote: args.agent }
          : { agent: args.agent }),
      };
    }
    case 'send': {
      const args = ACTION_SCHEMAS.send.parse(input);
      if (isRemoteAgent(args.agent))
        return {
          ok: false,
          message: `the page does not type into a host's agent; at the hub: macs send ${args.agent} <text>`,
          remote: args.agent,
        };
      if (!deps.send)
        return {
          ok: false,
          message:
            'typing into panes from the page is off; start macs web with --allow-send',
          agent: args.agent,
        };
      return {
        ...(await deps.send(args.agent, args.text, signal)),
        agent: args.agent,
      };
    }
    default: {
      const never: never = name;
      throw new MacsError(`unknown action ${String(never)}`);
    }
  }
}

/** Whether `name` is an action of the page. */
export function isActionName(name: string): name is ActionName {
  return Object.hasOwn(ACTION_SCHEMAS, name);
}

/** Run one action of the page and record it; a refusal is a reply, never a throw. */
export async function runWebAction(
  deps: WebActionDeps,
  name: ActionName,
  input: unknown,
  signal: AbortSignal,
): Promise<ActionReply> {
  const started = Date.now();
  let done: Done;
  try {
    done = await perform(deps, name, input, signal);
  } catch (error) {
    const message =
      error instanceof z.ZodError
        ? `bad input: ${error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}`
        : error instanceof MacsError && error.hint
          ? `${error.message} (hint: ${error.hint})`
          : errorMessage(error);
    if (!(
      error instanceof MacsError ||
      error instanceof ToolRefusal ||
      error instanceof z.ZodError
    ))
      deps.log.error({ err: error, action: name }, 'web action failed');
    done = {
      ok: false,
      message,
      ...(error instanceof ToolRefusal && error.agent
        ? { agent: error.agent }
        : {}),
    };
  }
  const about = (input as { agent?: unknown; id?: unknown } | null) ?? {};
  const agentName =
    done.agent ??
    (typeof about.agent === 'string' && isValidAgentName(about.agent)
      ? about.agent
      : WEB_EVENT_AGENT);
  const remote =
    done.remote ??
    [about.id, about.agent].find(
      (v): v is string =>
        typeof v === 'string' && (isRemoteId(v) || isRemoteAgent(v)),
    );
  const requestId =
    done.requestId ??
    (typeof about.id === 'string' && isSafeFileName(about.id)
      ? about.id
      : undefined);
  await emitSafely(deps.events, deps.log, {
    agent: agentName,
    type: 'web.action',
    ...(requestId ? { requestId } : {}),
    data: {
      by: 'web',
      action: name,
      ok: done.ok,
      ms: Date.now() - started,
      ...(remote ? { remote } : {}),
      ...(done.ok ? {} : { error: done.message }),
    },
  });
  await deps.refresh().catch(() => undefined);
  return { ok: done.ok, message: done.message };
}
