/**
 * The I/O around the pure hook handlers: `macs hook <event>`. A hook never
 * breaks its agent: whatever goes wrong (bad input, no agent, an unreadable
 * config, a full disk) it exits 0, prints nothing, and leaves an `error`
 * event when it can. It answers well within its timeout: plain events take
 * milliseconds; an approval waits at most `policy.askTimeoutSec`, and the
 * settings macs writes give the hook more time than that (install.ts).
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { loadConfig } from '../config/load.js';
import { packagedPromptsDir } from '../config/package.js';
import { defaultPolicy } from '../config/policy.js';
import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { createEventLog } from '../events/log.js';
import { isValidAgentName } from '../protocol/ids.js';
import { claimRequest } from '../state/claim.js';
import { isDeliveryPaused } from '../state/control.js';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import {
  decideOnce,
  hookRequestsDir,
  readDecision,
  readObservation,
  writeObservation,
  type DecisionFile,
  type HookObservation,
  type HookRequestFile,
} from '../state/hook-files.js';
import { resolveHomePaths, type HomePaths } from '../home/paths.js';
import { readAllAgentStates } from '../state/pending.js';
import { readAgentState } from '../state/store.js';
import type { AgentStateFile } from '../state/types.js';
import { getPreset } from '../config/presets/index.js';
import { planClaudeHook } from './claude.js';
import { resolveApproval } from './claude-approval.js';
import {
  CODEX_NOTIFY_EVENT,
  codexThreadId,
  planCodexNotify,
  type CodexThreadInfo,
} from './codex.js';
import { codexHomeOf, readCodexThreadInfo } from './codex-rollout.js';
import type { ApprovalAsk, HookContext, HookPlan } from './types.js';
import { isProcessAlive } from '../state/process.js';

/** Events of a hook whose agent is unknown go to `.macs/events/hooks.jsonl`. */
export const UNKNOWN_AGENT_EVENTS = 'hooks';
/** A hook gives up reading stdin after this long (an agent always closes it). */
export const STDIN_TIMEOUT_MS = 5000;
/**
 * A hook reads at most this much of stdin (a tool call's input included);
 * longer input is not read on, and the call does nothing but record an
 * error (the agent goes on: a hook never breaks its agent).
 */
export const HOOK_STDIN_MAX_BYTES = 8 * 1024 * 1024;
/** Every hook call but an approval finishes within this, or ends silently. */
export const HOOK_DEADLINE_MS = 10_000;
/** How often an approval looks for its decision. */
export const ASK_POLL_MS = 100;
/** How often an approval checks that the bridge is still running. */
const BRIDGE_CHECK_MS = 2000;
/** How many requests a Stop hook tries to claim before giving up. */
const MAX_CLAIM_TRIES = 5;
const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export interface HookRunOptions {
  /** `macs hook <event>`: a Claude Code event name, or `notify` for Codex. */
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

function raceTimeout<T>(
  promise: Promise<T>,
  ms: number,
  message: string,
): Promise<T> {
  const controller = new AbortController();
  const timeout = delay(ms, undefined, { signal: controller.signal }).then(
    () => {
      throw new Error(message);
    },
  );
  return Promise.race([promise, timeout]).finally(() => controller.abort());
}

async function readInput(
  opts: HookRunOptions,
  deps: HookRunDeps,
): Promise<string> {
  if (opts.payload !== undefined) return opts.payload;
  if (deps.stdinIsTTY) return '';
  return raceTimeout(
    deps.readStdin(HOOK_STDIN_MAX_BYTES),
    STDIN_TIMEOUT_MS,
    `stdin did not end within ${STDIN_TIMEOUT_MS} ms`,
  );
}

/** The hook kind of an agent's preset (`none` when unknown). */
function presetHooksOf(
  preset: string | undefined,
  config: MacsConfig | undefined,
): string {
  if (!preset) return 'none';
  try {
    return getPreset(preset, config?.presets ?? {}).hooks;
  } catch {
    return 'none';
  }
}

/**
 * Pure: why a hook call may not speak for `agent`, or undefined when it
 * may. With a bridge's record of the agent (its state), the call must come
 * from the agent's pane (`$TMUX_PANE`, which tmux sets for every process in
 * a pane) and the agent's preset must have hooks.
 */
export function hookOriginProblem(input: {
  agent: string;
  state?: Pick<AgentStateFile, 'pane' | 'preset'>;
  tmuxPane?: string;
  presetHooks: string;
}): string | undefined {
  const { agent, state } = input;
  if (!state) return undefined;
  if (state.pane && input.tmuxPane !== state.pane)
    return `it came from ${input.tmuxPane ? `pane ${input.tmuxPane}` : 'outside tmux'}, not from ${agent}'s pane ${state.pane}`;
  if (input.presetHooks === 'none')
    return `${agent}'s preset (${state.preset}) has no hooks`;
  return undefined;
}

export type AgentResolution =
  { type: 'found'; agent: string; via: string } | { type: 'none'; why: string };

/**
 * Which agent a hook belongs to: `--agent`/`MACS_AGENT` when given, else the
 * agent whose recorded pane is `$TMUX_PANE` (in `.macs/state/*.json`, then
 * the config's `workers[].pane`).
 */
export async function resolveHookAgent(
  paths: HomePaths,
  input: { agent?: string; tmuxPane?: string; config?: MacsConfig },
): Promise<AgentResolution> {
  if (input.agent !== undefined && input.agent !== '') {
    return isValidAgentName(input.agent)
      ? { type: 'found', agent: input.agent, via: 'name' }
      : { type: 'none', why: `'${input.agent}' is not a valid agent name` };
  }
  const pane = input.tmuxPane;
  if (!pane)
    return {
      type: 'none',
      why: 'neither MACS_AGENT nor TMUX_PANE is set',
    };
  const states = (await readAllAgentStates(paths))
    .filter((s) => s.pane === pane)
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  const byState = states[0];
  if (byState) return { type: 'found', agent: byState.agent, via: 'pane' };
  const configured = [
    ...(input.config?.workers ?? []),
    ...(input.config?.controller ? [input.config.controller] : []),
  ].find((w) => w.pane === pane);
  if (configured)
    return { type: 'found', agent: configured.name, via: 'config' };
  return {
    type: 'none',
    why: `no agent is recorded for pane ${pane} in ${paths.state}`,
  };
}

/** Is a bridge supervising this agent? (`.macs/state/<agent>.lock` names a live pid.) */
export async function isBridgeRunning(
  paths: HomePaths,
  agent: string,
): Promise<boolean> {
  const text = await readFile(
    path.join(paths.state, `${agent}.lock`),
    'utf8',
  ).catch(() => '');
  const pid = Number.parseInt(text, 10);
  return Number.isFinite(pid) && pid > 0 && isProcessAlive(pid);
}

interface AskOutcome {
  decision: Pick<DecisionFile, 'decision' | 'by' | 'reason'>;
  waitedMs: number;
  extra: Record<string, unknown>;
}

/**
 * Hook events that mean the agent went on after a PermissionRequest: its
 * dialog was answered at its screen (or the turn ended), so a decision
 * that comes now would be for a prompt that is gone.
 */
const MOVED_ON_EVENTS: ReadonlySet<string> = new Set([
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'Stop',
  'StopFailure',
  'SessionStart',
]);

/**
 * Ask the controller: leave the request for the bridge, then wait for the
 * decision file. Gives up at the timeout (or when the bridge goes away, or,
 * for a PermissionRequest, when the agent went on without it) and records
 * the default exclusively, so a late answer cannot change what the agent
 * was told. A decision is taken only for the same prompt (its fingerprint).
 */
async function runAsk(
  paths: HomePaths,
  agent: string,
  ask: ApprovalAsk,
  now: () => Date,
): Promise<AskOutcome> {
  const started = Date.now();
  const fallback = (why: string): DecisionFile => ({
    id: ask.id,
    decision: ask.default,
    by: 'timeout',
    fingerprint: ask.fingerprint,
    reason:
      ask.default === 'dialog'
        ? `${why}; Claude Code's own dialog is left to a person`
        : `${why}; macs applied its default (${ask.default})`,
    decidedAt: now().toISOString(),
  });
  if (!(await isBridgeRunning(paths, agent))) {
    const decision = fallback(
      `no macs bridge is running for ${agent}, so nobody can approve this`,
    );
    return { decision, waitedMs: 0, extra: { noBridge: true } };
  }
  const dir = hookRequestsDir(paths, agent);
  const file = path.join(dir, `${ask.id}.json`);
  const createdAt = now().toISOString();
  const request: HookRequestFile = {
    id: ask.id,
    agent,
    type: 'approval',
    event: ask.event,
    tool: ask.tool,
    subject: ask.subject,
    ...(ask.rule ? { rule: ask.rule } : {}),
    fingerprint: ask.fingerprint,
    body: ask.body,
    createdAt,
    timeoutSec: ask.timeoutSec,
    default: ask.default,
    pid: process.pid,
    ...(ask.toolUseId ? { toolUseId: ask.toolUseId } : {}),
    ...(ask.sessionId ? { sessionId: ask.sessionId } : {}),
  };
  await ensurePrivateDir(path.dirname(dir));
  await ensurePrivateDir(dir);
  await writeFileAtomic(file, `${JSON.stringify(request, null, 2)}\n`);
  const deadline = started + ask.timeoutSec * 1000;
  let lastBridgeCheck = started;
  // The agent that runs this hook is our parent: once it is gone (the pane
  // was killed, the agent crashed) we are re-parented and nobody waits.
  const parent = process.ppid;
  let why = `no decision from the controller within ${ask.timeoutSec}s`;
  try {
    for (;;) {
      const decided = await readDecision(paths, ask.id);
      if (decided) {
        if (decided.fingerprint && decided.fingerprint !== ask.fingerprint)
          return {
            decision: fallback('the decision was for another prompt'),
            waitedMs: Date.now() - started,
            extra: { mismatch: true },
          };
        return { decision: decided, waitedMs: Date.now() - started, extra: {} };
      }
      if (Date.now() >= deadline) break;
      if (process.ppid !== parent) {
        why = `${agent} ended before a decision came`;
        break;
      }
      if (ask.event === 'PermissionRequest') {
        const seen = await readObservation(paths, agent);
        if (seen && seen.ts > createdAt && MOVED_ON_EVENTS.has(seen.event)) {
          why = `${agent} went on (${seen.event}) before a decision came: its dialog was answered at its screen`;
          break;
        }
      }
      if (Date.now() - lastBridgeCheck >= BRIDGE_CHECK_MS) {
        lastBridgeCheck = Date.now();
        if (!(await isBridgeRunning(paths, agent))) {
          why = `the macs bridge for ${agent} stopped before a decision came`;
          break;
        }
      }
      await delay(Math.min(ASK_POLL_MS, Math.max(1, deadline - Date.now())));
    }
    const stands = await decideOnce(paths, fallback(why));
    return {
      decision: stands.decision,
      waitedMs: Date.now() - started,
      extra: stands.first ? {} : { late: true },
    };
  } finally {
    // Picked up requests were moved by the bridge already; a request nobody
    // picked up must not turn into a question after the agent moved on.
    await rm(file, { force: true }).catch(() => undefined);
  }
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
    const raw = await readInput(opts, deps);
    let config: MacsConfig | undefined;
    let configError: string | undefined;
    try {
      config = (
        await loadConfig({
          home: paths.home,
          env: deps.env,
          ...((opts.config ?? deps.env.MACS_CONFIG)
            ? { path: opts.config ?? deps.env.MACS_CONFIG }
            : {}),
        })
      ).config;
    } catch (error) {
      configError = errorMessage(error);
    }
    const named = opts.agent ?? deps.env.MACS_AGENT;
    const resolved = await resolveHookAgent(paths, {
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
    // The controller's pane says so (session/layout.ts, buildAgentEnv).
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
    const state = await readAgentState(paths, agent);
    // A hook speaks for its agent only from the agent's own pane, and only
    // for a preset that has hooks: otherwise any process could mark another
    // agent idle, or take the answer queued for it.
    const foreign = hookOriginProblem({
      agent,
      ...(state ? { state } : {}),
      ...(deps.env.TMUX_PANE ? { tmuxPane: deps.env.TMUX_PANE } : {}),
      presetHooks: presetHooksOf(state?.preset, config),
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
    const plan = (): HookPlan =>
      opts.event === CODEX_NOTIFY_EVENT
        ? planCodexNotify(raw, codexThread)
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
    const silent =
      (opts.event === CODEX_NOTIFY_EVENT && !current.observation) || undecided;
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

/**
 * The observation a hook leaves: its state (or the previous one when the
 * event says nothing about the state), with the counters carried forward.
 */
export function mergeObservation(
  event: string,
  plan: HookPlan,
  previous: HookObservation | undefined,
  now: Date,
): HookObservation {
  const state = plan.observation?.state ?? previous?.state;
  const blocks =
    plan.observation?.consecutiveBlocks ?? previous?.consecutiveBlocks;
  const lastPromptAt =
    event === 'UserPromptSubmit' ? now.toISOString() : previous?.lastPromptAt;
  return {
    event,
    ts: now.toISOString(),
    ...(state ? { state } : {}),
    ...(plan.observation?.delivered
      ? { delivered: plan.observation.delivered }
      : {}),
    ...(blocks !== undefined ? { consecutiveBlocks: blocks } : {}),
    ...(lastPromptAt ? { lastPromptAt } : {}),
  };
}
