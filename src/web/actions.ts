/**
 * What a person can do from the page of `macs web`, each through the
 * operations the command line and the MCP tools use (src/operations/):
 * answers and approval decisions are written to the outbox with `macs
 * respond`'s checks (answer-request.ts; the bridge delivers them,
 * re-checking an approval's prompt first); dismissals, pauses and messages
 * go through dismiss-requests.ts, pause-delivery.ts and send-message.ts.
 * Each is recorded as a `web.action` event with `by: "web"`.
 *
 * A host's request (`<host>/<id>`, docs/remote.md) is answered and decided
 * by the host itself through the forwarding at a hub (hub-tools.ts: an
 * answer to an unreachable host is kept and delivered once), and dismissed
 * or paused by the host's own macs (host-forward.ts). Its event is filed
 * under `web`, the host's name in `data.remote`.
 */
import * as z from 'zod';
import type { MacsConfig } from '../config/schema.js';
import { AgentError, errorWithHint, MacsError } from '../errors.js';
import { emitSafely, type EventSink } from '../events/log.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { isSafeFileName, isValidAgentName } from '../protocol/ids.js';
import { describeUntyped } from '../protocol/sanitize.js';
import {
  answerRequest,
  decideApproval,
  type AnswerResult,
} from '../operations/answer-request.js';
import {
  describeDismissal,
  dismissRequest,
} from '../operations/dismiss-requests.js';
import { setAgentPaused } from '../operations/pause-delivery.js';
import { Refusal } from '../operations/refusal.js';
import type { RemoteTools } from '../operations/types.js';
import { splitRemoteName } from '../remote/names.js';
import type { SnapshotReader } from '../state/snapshot.js';
import type { SnapshotFeed } from '../state/snapshot-feed.js';
import type { RunTmux } from '../tmux/run.js';
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

/** The home the actions act on, and what they need to (no functions of other doors). */
export interface WebActionDeps {
  paths: HomePaths;
  config: MacsConfig;
  env: NodeJS.ProcessEnv;
  reader: SnapshotReader;
  /** The fleet as the page sees it: an agent not in it is refused. */
  feed: Pick<SnapshotFeed, 'current'>;
  events: EventSink;
  log: Logger;
  /** Messages typed into panes (`--allow-send`): how to reach tmux. */
  send?: { runTmux: RunTmux; socket?: string };
  /**
   * A tool call about `<host>/…` answered by the host (web/web-fleet.ts
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
    throw new Refusal(
      `'${args.id}' names a host's request, but this home's macs.config.json has no hosts`,
    );
  // A person in the page: the host records the answer as theirs.
  const output = await deps.forward(tool, args, 'hub:web');
  if (!output) throw new Refusal(`'${args.id}' is not a request of a host`);
  return { ok: true, message: output.text, remote: args.id };
}

/** The answer written, or its refusal thrown (a reply of the page). */
function answered(
  result: AnswerResult,
): Extract<AnswerResult, { type: 'answered' }> {
  switch (result.type) {
    case 'answered':
      return result;
    case 'not-approval':
      throw new Refusal(
        `request '${result.request.id}' is a ${result.request.type} request, not an approval; answer it instead`,
        result.request.agent,
      );
    case 'refused':
      throw new Refusal(result.reason, result.agent);
  }
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
  const { request, written } = answered(
    await answerRequest(deps.paths, deps.reader, {
      id: input.id,
      instructions: input.text,
      ...(input.notes !== undefined ? { notes: input.notes } : {}),
      by: 'web:answer',
    }),
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
  const { request } = answered(
    await decideApproval(deps.paths, deps.reader, {
      id: input.id,
      decision: input.decision,
      reason: input.reason,
      note: 'decided by a person in macs web',
      by: 'web:decide_approval',
    }),
  );
  return {
    ok: true,
    message: `${input.decision === 'allow' ? 'allowed' : 'denied'} ${request.id} (${request.agent}); the bridge checks the prompt is still the one asked about before it answers`,
    agent: request.agent,
    requestId: request.id,
  };
}

async function dismiss(
  deps: WebActionDeps,
  input: ActionInput<'dismiss'>,
): Promise<Done> {
  const outcome = await dismissRequest(
    deps,
    input.id,
    input.reason?.trim() || 'dismissed in macs web',
  );
  const reply: ActionReply = !outcome
    ? { ok: false, message: 'nothing dismissed' }
    : outcome.result === 'on-host'
      ? {
          ok: true,
          message: outcome.lines.join('\n') || `dismissed ${input.id}`,
        }
      : {
          ok:
            outcome.result === 'dismissed' || outcome.result === 'handed-over',
          message: describeDismissal(outcome),
        };
  return isRemoteId(input.id)
    ? { ...reply, remote: input.id }
    : { ...reply, requestId: input.id };
}

/** An agent of the fleet the page shows; another name is refused. */
function checkKnown(deps: WebActionDeps, agent: string): void {
  if (!deps.feed.current()?.agents.some((a) => a.name === agent))
    throw new AgentError(`no agent '${agent}' in ${deps.paths.home}`);
}

async function pause(
  deps: WebActionDeps,
  name: 'pause' | 'resume',
  input: ActionInput<'pause'>,
): Promise<Done> {
  const remote = isRemoteAgent(input.agent);
  if (!remote) checkKnown(deps, input.agent);
  await setAgentPaused(deps, input.agent, name === 'pause', 'web');
  return {
    ok: true,
    message:
      name === 'pause'
        ? `delivery to ${input.agent} paused: its answers wait (kept) until resumed`
        : `delivery to ${input.agent} resumed`,
    ...(remote ? { remote: input.agent } : { agent: input.agent }),
  };
}

async function send(
  deps: WebActionDeps,
  input: ActionInput<'send'>,
  signal: AbortSignal,
): Promise<Done> {
  const { agent } = input;
  if (isRemoteAgent(agent))
    return {
      ok: false,
      message: `the page does not type into a host's agent; at the hub: macs send ${agent} <text>`,
      remote: agent,
    };
  if (!deps.send)
    return {
      ok: false,
      message:
        'typing into panes from the page is off; start macs web with --allow-send',
      agent,
    };
  checkKnown(deps, agent);
  // The typist is loaded when a message is sent, not when the page starts.
  const { sendToAgent } = await import('../operations/send-message.js');
  const outcome = await sendToAgent({
    agent,
    text: input.text,
    paths: deps.paths,
    config: deps.config,
    runTmux: deps.send.runTmux,
    ...(deps.send.socket ? { socket: deps.send.socket } : {}),
    timeoutSec: WEB_SEND_TIMEOUT_SEC,
    signal,
  });
  if (outcome.type === 'cancelled')
    return { ok: false, message: 'cancelled; nothing was typed', agent };
  return outcome.data.confirmed
    ? { ok: true, message: `sent to ${outcome.shown}: ${outcome.how}`, agent }
    : {
        ok: false,
        message: `typed into ${outcome.shown} but saw no sign the agent took it; not typed again`,
        agent,
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
    case 'dismiss':
      return dismiss(deps, ACTION_SCHEMAS.dismiss.parse(input));
    case 'pause':
    case 'resume':
      return pause(deps, name, ACTION_SCHEMAS[name].parse(input));
    case 'send':
      return send(deps, ACTION_SCHEMAS.send.parse(input), signal);
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
        : errorWithHint(error);
    if (!(
      error instanceof MacsError ||
      error instanceof Refusal ||
      error instanceof z.ZodError
    ))
      deps.log.error({ err: error, action: name }, 'web action failed');
    done = {
      ok: false,
      message,
      ...(error instanceof Refusal && error.agent
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
