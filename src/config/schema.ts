import { HostsSchema } from './host-config.js';
import { PolicySchema } from './policy.js';
import * as z from 'zod/mini';
import './zod.js';

/**
 * The one source of truth for `macs.config.json` (SPEC §4, §5). Objects are
 * strict: an unknown key is an error, never silently ignored.
 */
const agentName = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
      'a name of letters, digits, . _ - (at most 64)',
    ),
  );

export const BackendNameSchema = z.enum(['file', 'exec', 'interactive']);
export type BackendName = z.infer<typeof BackendNameSchema>;

/** What an unattended worker's question is answered (docs/unattended.md). */
export const DEFAULT_NON_INTERACTIVE_ANSWER =
  'Nobody can answer now: you run unattended (macs non-interactive mode). Take the most conservative choice that keeps your work safe and reversible, say in your final summary which guess you made and why, and go on. If the assignment cannot be done safely without an answer, stop, refuse it, and say why.';

const nonNegative = z.number().check(z.minimum(0));

/** Dollars per million tokens of one model (docs/usage.md). */
export const ModelPriceSchema = z.strictObject({
  input: nonNegative,
  output: nonNegative,
  cacheRead: z.optional(nonNegative),
  cacheWrite: z.optional(nonNegative),
  /** Anthropic's one-hour cache writes (cacheWrite is the 5-minute rate). */
  cacheWrite1h: z.optional(nonNegative),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * A spending limit (docs/usage.md): dollars, tokens (every token: input,
 * output, cache read and write), or both; whichever is reached first counts.
 */
export const BudgetSchema = z
  .strictObject({
    usd: z.optional(z.number().check(z.positive())),
    tokens: z.optional(z.number().check(z.int(), z.positive())),
  })
  .check(
    z.refine((b) => b.usd !== undefined || b.tokens !== undefined, {
      message: 'a budget needs usd or tokens',
    }),
  );
export type Budget = z.infer<typeof BudgetSchema>;

export const AgentConfigSchema = z.strictObject({
  name: agentName,
  preset: z.optional(z.string()),
  command: z.optional(
    z.union([z.string(), z.array(z.string()).check(z.minLength(1))]),
  ),
  cwd: z.optional(z.string()),
  env: z._default(z.record(z.string(), z.string()), {}),
  worktree: z._default(z.boolean(), false),
  pane: z.optional(z.string()),
  /**
   * `macs start`: type prompts/worker.md into the worker as its first
   * message. Default: on for presets without hooks (except `shell`).
   */
  prompt: z.optional(z.boolean()),
  /** This agent's spending limit (docs/usage.md). */
  budget: z.optional(BudgetSchema),
  /**
   * A worker that runs on another host of `hosts` (docs/remote.md): that
   * host's macs starts it in its home and supervises it; the hub sees it
   * as `<host>/<name>`.
   */
  host: z.optional(agentName),
  /**
   * Workers only: run unattended (docs/unattended.md), over the session's
   * `nonInteractive` for this worker.
   */
  nonInteractive: z.optional(z.boolean()),
});
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

/**
 * What a worker on another host cannot have: the host's bridge reads these
 * from the host's own config, which does not hold the hub's workers.
 */
const HOST_WORKER_UNSUPPORTED = ['pane', 'budget'] as const;

/**
 * The `host` key of agents: only workers have one, it names a host of
 * `hosts`, and a worker there has no key that only the host's config can hold.
 */
function checkAgentHosts<
  T extends {
    hosts: Record<string, unknown>;
    controller?: AgentConfig | undefined;
    workers: AgentConfig[];
  },
>(config: T, ctx: z.core.$RefinementCtx<T>): void {
  const issue = (path: (string | number)[], message: string) =>
    ctx.issues.push({ code: 'custom', message, input: undefined, path });
  if (config.controller?.host !== undefined)
    issue(
      ['controller', 'host'],
      'the controller runs at the hub: only workers have a "host"',
    );
  const names = Object.keys(config.hosts);
  config.workers.forEach((worker, i) => {
    if (worker.host === undefined) return;
    if (!names.includes(worker.host)) {
      issue(
        ['workers', i, 'host'],
        `no host '${worker.host}' under "hosts" (${names.length ? `hosts: ${names.join(', ')}` : 'none is defined'})`,
      );
      return;
    }
    for (const key of HOST_WORKER_UNSUPPORTED) {
      if (worker[key] !== undefined)
        issue(
          ['workers', i, key],
          `a worker on another host ("host": "${worker.host}") cannot have "${key}": set it in that host's own macs.config.json`,
        );
    }
  });
}

const positiveInt = z.number().check(z.int(), z.positive());
const count = z.number().check(z.int(), z.minimum(0));

export const ConfigSchema = z
  .strictObject({
    backend: z._default(BackendNameSchema, 'file'),
    controller: z.optional(AgentConfigSchema),
    workers: z._default(z.array(AgentConfigSchema), []),
    /** Request type → chain of backends tried in order (SPEC §3). */
    routes: z._default(
      z.record(z.string(), z.array(BackendNameSchema).check(z.minLength(1))),
      {},
    ),
    /** Backends tried after the routed one fails, ending with a person. */
    fallback: z._default(z.array(BackendNameSchema), ['file']),
    /** Exec backend argv (no shell). */
    exec: z.optional(z.array(z.string()).check(z.minLength(1))),
    /** A ready-made exec command (docs/backends.md); `exec` wins when both are set. */
    execPreset: z.optional(z.enum(['codex', 'claude', 'gemini'])),
    /** Custom presets by name (validated by the preset schema when used). */
    presets: z._default(z.record(z.string(), z.unknown()), {}),
    maxBlockLines: z._default(positiveInt, 500),
    maxBlockBytes: z._default(positiveInt, 65_536),
    /**
     * A block whose end marker has not come is shown to a person as an
     * incomplete request once the pane has been quiet this long (sooner
     * when the agent's prompt shows under it); 0: only then.
     */
    incompleteAfterSec: z._default(count, 5),
    dedupWindowSec: z._default(count, 3600),
    contextLines: z._default(positiveInt, 40),
    heuristics: z._default(z.boolean(), false),
    heuristicLines: z._default(positiveInt, 20),
    /**
     * What a heuristic fires on (SPEC §2); each list replaces its default
     * (screen/heuristics.ts). Phrases match as whole words, in any case.
     */
    heuristicTriggers: z.optional(
      z.strictObject({
        question: z.optional(z.boolean()),
        ask: z.optional(z.array(z.string().check(z.trim(), z.minLength(1)))),
        done: z.optional(z.array(z.string().check(z.trim(), z.minLength(1)))),
      }),
    ),
    controllerTimeoutSec: z._default(positiveInt, 300),
    execTimeoutSec: z._default(positiveInt, 300),
    deliverTimeoutSec: z._default(positiveInt, 600),
    submitRetries: z._default(count, 2),
    maxRequestsPerHour: z._default(positiveInt, 20),
    /**
     * Per agent: what a worker may have open at once and ask for (SPEC §9, a
     * flooding agent). A request over a limit is not raised: it is recorded
     * as `request.limited` (once per burst) and a person is called.
     */
    limits: z.prefault(
      z.strictObject({
        maxPendingRequests: z._default(positiveInt, 100),
        maxRequestsPerMinute: z._default(positiveInt, 120),
        maxPendingBytes: z._default(positiveInt, 4 * 1024 * 1024),
      }),
      {},
    ),
    noSplit: z._default(z.boolean(), false),
    /**
     * Run unattended (docs/unattended.md): every request is answered at
     * once, with nobody asked; `workers[].nonInteractive` overrides it.
     */
    nonInteractive: z._default(z.boolean(), false),
    /** The answer an unattended worker's question gets. */
    nonInteractiveAnswer: z._default(
      z.string().check(z.minLength(1)),
      DEFAULT_NON_INTERACTIVE_ANSWER,
    ),
    /** A pane log is rotated once read past this many bytes (nothing is lost). */
    paneLogMaxBytes: z._default(positiveInt, 8 * 1024 * 1024),
    /** How often a controller's screen is read while it answers (interactive backend), in ms. */
    pollIntervalMs: z._default(positiveInt, 250),
    /**
     * Backstop poll of pane logs, the outbox and hook files, in ms: change
     * notifications come first, so this only matters when one is lost. Slow,
     * so an idle bridge costs next to nothing.
     */
    backstopMs: z._default(positiveInt, 2000),
    /** `macs stop`: seconds an agent gets to exit after the interrupt key. */
    stopGraceSec: z._default(positiveInt, 5),
    /** Other hosts, each running its own macs, joined over ssh (docs/remote.md). */
    hosts: HostsSchema,
    /** An ssh config file for every ssh macs runs (`-F`); `MACS_SSH_CONFIG` too. */
    sshConfig: z.optional(z.string()),
    /** The session's spending limit, all agents together (docs/usage.md). */
    budget: z.optional(BudgetSchema),
    /**
     * At 100% of a budget the agent is paused (`pause`: no answer is typed
     * into it); `interrupt` also presses its preset's interrupt key.
     */
    onBudget: z._default(z.enum(['pause', 'interrupt']), 'pause'),
    /** Dollars per million tokens per model, over the defaults (docs/usage.md). */
    prices: z._default(z.record(z.string(), ModelPriceSchema), {}),
    /** What `macs hook PreToolUse` denies or asks about (docs/hooks.md). */
    policy: z.prefault(PolicySchema, {}),
    /**
     * How a person is called when a request waits for them or an agent turns
     * approval/error/dead (once per request or state change): the status
     * view's bell, a tmux message, and a command of their own (argv, no shell;
     * the event as JSON on stdin), e.g. ["notify-send", "macs"].
     */
    attention: z.prefault(
      z.strictObject({
        bell: z._default(z.boolean(), true),
        tmuxMessage: z._default(z.boolean(), true),
        notify: z.optional(
          z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
        ),
        notifyTimeoutSec: z._default(positiveInt, 10),
      }),
      {},
    ),
  })
  .check(z.superRefine(checkAgentHosts));

export type MacsConfig = z.infer<typeof ConfigSchema>;
export type MacsConfigInput = z.input<typeof ConfigSchema>;
