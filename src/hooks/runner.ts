/**
 * The I/O around the pure hook handlers: `macs hook <event>`. A hook never
 * breaks its agent: whatever goes wrong (bad input, no agent, an unreadable
 * config, a full disk) it exits 0, prints nothing, and leaves an `error`
 * event when it can. It answers well within its timeout: plain events take
 * milliseconds; an approval waits at most `policy.askTimeoutSec`, and the
 * settings macs writes give the hook more time than that (hook-command.ts).
 *
 * One call: read the input (stdin.ts) and the config (config-cache.ts:
 * validated once, then cached), find the agent and check the call
 * may speak for it (hook-origin.ts), plan with the agent's handler, claim a
 * request the plan hands over, ask the controller for an approval
 * (ask.ts), print the reply, then write the observation (observation.ts)
 * and the events.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { packagedPromptsDir } from '../config/package.js';
import { defaultPolicy } from '../config/policy-defaults.js';
import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { createEventLog } from '../events/log.js';
import { claimRequest } from '../state/claim.js';
import { isDeliveryPaused } from '../state/person-controls.js';
import { readObservation, writeObservation } from '../state/hook-files.js';
import {
  readConversation,
  writeConversation,
} from '../state/conversation-record.js';
import { resolveHomePaths } from '../home/paths.js';
import { agentStatesReadOnce } from '../state/store.js';
import { appendActivity } from '../state/agent-activity.js';
import { runAsk } from './ask.js';
import { planClaudeHook } from './claude-hook-protocol.js';
import { resolveApproval } from './claude-approval.js';
import {
  CODEX_NOTIFY_EVENT,
  codexThreadId,
  planCodexNotify,
  type CodexThreadInfo,
} from './codex-notify.js';
import { planCodexHook } from './codex-hooks.js';
import { codexHomeOf, readCodexThreadInfo } from './codex-rollout.js';
import { loadHookConfig } from './config-cache.js';
import { applyDenial } from './denial-step.js';
import { conversationFromHook } from './reported-conversation.js';
import { mergeObservation } from './observation.js';
import {
  hookOriginProblem,
  loadPresetHooks,
  resolveHookAgent,
} from './hook-origin.js';
import { readHookInput } from './stdin.js';
import type { HookContext, HookPlan } from './types.js';

/** Events of a hook whose agent is unknown go to `.macs/events/hooks.jsonl`. */
export const UNKNOWN_AGENT_EVENTS = 'hooks';
/** Every hook call but an approval finishes within this, or ends silently. */
export const HOOK_DEADLINE_MS = 10_000;
/** How many requests a Stop hook tries to claim before giving up. */
const MAX_CLAIM_TRIES = 5;
const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export interface HookRunOptions {
  /**
   * `macs hook <event>`: a Claude Code event name; for Codex `notify` or
   * one of its lifecycle events (codex-hooks.ts).
   */
  event: string;
  /** Codex passes its JSON as an argument instead of stdin. */
  payload?: string;
  home?: string;
  agent?: string;
  config?: string;
}

export interface HookRunDeps {
  env: NodeJS.ProcessEnv;
  cwd: string;
  readStdin: (maxBytes?: number) => Promise<string>;
  stdinIsTTY: boolean;
  /** Print the reply (one line of JSON on stdout). */
  write: (line: string) => void;
  now?: () => Date;
  /** Where prompts/worker.md lives (default: the package's prompts/). */
  promptsDir?: string;
}

export interface HookRunResult {
  agent?: string;
  reply?: Record<string, unknown>;
  error?: string;
}

async function readWorkerPrompt(dir: string): Promise<string> {
  return readFile(path.join(dir, 'worker.md'), 'utf8');
}

/**
 * Run one hook call. Never throws and never prints anything but the reply;
 * the CLI exits 0 whatever this returns.
 */
export async function runHook(
  opts: HookRunOptions,
  deps: HookRunDeps,
): Promise<HookRunResult> {
  const now = deps.now ?? (() => new Date());
  const paths = resolveHomePaths(opts.home ?? deps.env.MACS_HOME ?? deps.cwd);
  const log = createEventLog(paths);
  const result: HookRunResult = {};
  let finished = false;
  // A deadline that an approval moves: the call ends silently when it passes.
  let deadlineTimer: NodeJS.Timeout | undefined;
  let expire: (error: Error) => void = () => undefined;
  const deadline = new Promise<never>((_, reject) => {
    expire = reject;
  });
  const armDeadline = (ms: number) => {
    clearTimeout(deadlineTimer);
    deadlineTimer = setTimeout(
      () =>
        expire(
          new Error('the hook did not finish in time; it answered nothing'),
        ),
      ms,
    );
  };
  armDeadline(HOOK_DEADLINE_MS);

  const recordError = async (message: string, agent?: string) => {
    result.error = message;
    // Never create .macs/ in a folder that is not a macs home.
    if (!agent && !existsSync(paths.runtime)) return;
    await log
      .emit({
        agent: agent ?? UNKNOWN_AGENT_EVENTS,
        type: 'error',
        data: { where: 'hook', event: opts.event.slice(0, 64), message },
      })
      .catch(() => undefined);
  };

  const work = async () => {
    if (!EVENT_NAME.test(opts.event)) {
      await recordError(`'${opts.event.slice(0, 64)}' is not a hook event`);
      return;
    }
    const explicitHome = opts.home ?? deps.env.MACS_HOME;
    if (!explicitHome && !existsSync(paths.runtime)) {
      // Never create .macs/ in a project that is not a macs home.
      await recordError(
        `${paths.home} is not a macs home (no .macs/); pass --home or set MACS_HOME`,
      );
      return;
    }
    const raw = await readHookInput({
      payload: opts.payload,
      stdinIsTTY: deps.stdinIsTTY,
      readStdin: deps.readStdin,
    });
    let config: MacsConfig | undefined;
    let configError: string | undefined;
    try {
      // Validated once, then read from a cache (config-cache.ts).
      config = await loadHookConfig(paths, {
        env: deps.env,
        ...((opts.config ?? deps.env.MACS_CONFIG)
          ? { path: opts.config ?? deps.env.MACS_CONFIG }
          : {}),
      });
    } catch (error) {
      configError = errorMessage(error);
    }
    const named = opts.agent ?? deps.env.MACS_AGENT;
    const readState = agentStatesReadOnce(paths);
    const resolved = await resolveHookAgent(paths, {
      readState,
      ...(named !== undefined ? { agent: named } : {}),
      ...(deps.env.TMUX_PANE ? { tmuxPane: deps.env.TMUX_PANE } : {}),
      ...(config ? { config } : {}),
    });
    if (resolved.type === 'none') {
      await recordError(
        `cannot tell which agent this hook is for: ${resolved.why}`,
      );
      return;
    }
    const agent = resolved.agent;
    result.agent = agent;
    if (configError)
      await recordError(
        `config unreadable, using the default policy: ${configError}`,
        agent,
      );
    // The controller's pane says so (session/session-layout.ts, buildAgentEnv).
    const role = deps.env.MACS_ROLE === 'controller' ? 'controller' : 'worker';
    let workerPrompt = '';
    if (opts.event === 'SessionStart' && role === 'worker') {
      workerPrompt = await readWorkerPrompt(
        deps.promptsDir ?? packagedPromptsDir(),
      ).catch(async (error: unknown) => {
        await recordError(
          `cannot read prompts/worker.md: ${errorMessage(error)}`,
          agent,
        );
        return '';
      });
    }
    const previous = await readObservation(paths, agent);
    const state = await readState(agent);
    // A hook speaks for its agent only from the agent's own pane, and only
    // for a preset that has hooks: otherwise any process could mark another
    // agent idle, or take the answer queued for it.
    const presetHooks = await loadPresetHooks(state?.preset, config);
    const foreign = hookOriginProblem({
      agent,
      ...(state ? { state } : {}),
      ...(deps.env.TMUX_PANE ? { tmuxPane: deps.env.TMUX_PANE } : {}),
      presetHooks,
    });
    if (foreign) {
      await recordError(`hook ${opts.event} refused: ${foreign}`, agent);
      return;
    }
    // Codex: which thread the notification is for (its own records say).
    let codexThread: CodexThreadInfo | undefined;
    const threadId =
      opts.event === CODEX_NOTIFY_EVENT ? codexThreadId(raw) : undefined;
    const codexHome = codexHomeOf(deps.env);
    if (threadId && codexHome)
      codexThread = await readCodexThreadInfo(codexHome, threadId).catch(
        () => undefined,
      );
    const unavailable = new Set<string>();
    const ctx = (): HookContext => ({
      agent,
      now: now(),
      agentState: state,
      previous,
      policy: config?.policy ?? defaultPolicy(),
      workerPrompt,
      role,
      unavailable,
      paused: isDeliveryPaused(paths, agent) || Boolean(state?.paused),
    });
    // Codex's lifecycle hooks (codex-hooks.ts) share their event names
    // with Claude Code's: the agent's preset says whose they are.
    const codexHook =
      opts.event !== CODEX_NOTIFY_EVENT && presetHooks === 'codex';
    const plan = (): HookPlan =>
      opts.event === CODEX_NOTIFY_EVENT
        ? planCodexNotify(raw, codexThread)
        : codexHook
          ? planCodexHook(opts.event, raw, ctx())
          : planClaudeHook(opts.event, raw, ctx());

    let current = plan();
    let claimed = false;
    for (
      let tries = 0;
      current.claim && !claimed && tries < MAX_CLAIM_TRIES;
      tries += 1
    ) {
      const claim = await claimRequest(paths, current.claim, 'hook', now());
      if (claim.type === 'claimed') claimed = true;
      else {
        unavailable.add(current.claim);
        current = plan();
      }
    }
    if (current.claim && !claimed) {
      // Could not claim anything: hand nothing over this time.
      for (const id of Object.keys(state?.requests ?? {})) unavailable.add(id);
      current = plan();
    }

    let undecided = false;
    if (current.ask) {
      const ask = current.ask;
      // The approval bounds its own wait; the deadline moves past it.
      armDeadline(HOOK_DEADLINE_MS + ask.timeoutSec * 1000);
      // The agent waits for a decision meanwhile: `approval`.
      await writeObservation(
        paths,
        agent,
        mergeObservation(opts.event, current, previous, now()),
      ).catch(() => undefined);
      const outcome = await runAsk(paths, agent, ask, now);
      undecided = outcome.decision.decision === 'dialog';
      current = resolveApproval(ask, outcome.decision, outcome.waitedMs, {
        ...outcome.extra,
      });
    }
    // A denied call: an overturned appeal lets it through once; else it is
    // recorded for an appeal (denial-step.ts).
    if (current.denial)
      current = await applyDenial(paths, agent, current, now()).catch(
        async (error: unknown) => {
          await recordError(
            `cannot record the denial: ${errorMessage(error)}`,
            agent,
          );
          return current;
        },
      );
    if (finished) return;
    if (current.reply) {
      result.reply = current.reply;
      deps.write(JSON.stringify(current.reply));
    }
    // The reply is out; what follows is bookkeeping and must not change it.
    // A Codex notification that says nothing about the agent (an auxiliary
    // thread's turn) leaves the observation as it was: rewriting it would
    // make a stale state look fresh to the bridge.
    // An approval nobody decided (Claude Code's dialog is left to a person)
    // leaves the `approval` written before the wait, or whatever a later
    // hook wrote since (the agent went on): rewriting it would bring a
    // stale state back.
    // Codex's lifecycle hooks say nothing about the state either.
    const silent =
      ((opts.event === CODEX_NOTIFY_EVENT || codexHook) &&
        !current.observation) ||
      undecided;
    try {
      if (!silent)
        await writeObservation(
          paths,
          agent,
          mergeObservation(opts.event, current, previous, now()),
        );
    } catch (error) {
      await recordError(
        `cannot write the hook observation: ${errorMessage(error)}`,
        agent,
      );
    }
    // The conversation the agent says it is in, for `macs restart` and
    // `macs start --resume` (docs/session.md); written only when it changes.
    // (Codex's is read from its notify payload only.)
    const said = codexHook
      ? undefined
      : conversationFromHook(opts.event, raw, codexThread);
    if (said) {
      const known = await readConversation(paths, agent);
      if (known?.id !== said.id || known.transcript !== said.transcript) {
        await writeConversation(paths, {
          agent,
          ...said,
          at: now().toISOString(),
        }).catch((error: unknown) =>
          recordError(
            `cannot record the conversation: ${errorMessage(error)}`,
            agent,
          ),
        );
        if (known?.id !== said.id)
          current.events.push({
            type: 'conversation.recorded',
            data: { conversation: said.id, source: said.source },
          });
      }
    }
    // Subagents and compactions, for status and usage (state/agent-activity.ts).
    if (current.activity?.length) {
      const ts = now().toISOString();
      await appendActivity(
        paths,
        agent,
        current.activity.map((line) => ({ ...line, ts })),
      ).catch((error: unknown) =>
        recordError(
          `cannot record the agent's activity: ${errorMessage(error)}`,
          agent,
        ),
      );
    }
    for (const event of current.events) {
      await log
        .emit({
          agent,
          type: event.type as `hook.${string}`,
          ...(event.requestId ? { requestId: event.requestId } : {}),
          ...(event.data ? { data: event.data } : {}),
        })
        .catch(() => undefined);
    }
  };

  try {
    await Promise.race([work(), deadline]);
  } catch (error) {
    finished = true;
    await recordError(errorMessage(error), result.agent);
  } finally {
    clearTimeout(deadlineTimer);
  }
  finished = true;
  return result;
}
