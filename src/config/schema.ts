import * as z from 'zod';
import { PolicySchema } from './policy.js';

/**
 * The one source of truth for `macs.config.json` (SPEC §4, §5). Objects are
 * strict: an unknown key is an error, never silently ignored.
 */
const agentName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'a name of letters, digits, . _ - (at most 64)',
  );

export const BackendNameSchema = z.enum(['file', 'exec', 'interactive']);
export type BackendName = z.infer<typeof BackendNameSchema>;

export const AgentConfigSchema = z.strictObject({
  name: agentName,
  preset: z.string().optional(),
  command: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).default({}),
  worktree: z.boolean().default(false),
  pane: z.string().optional(),
  /**
   * `macs start`: type prompts/worker.md into the worker as its first
   * message. Default: on for presets without hooks (except `shell`).
   */
  prompt: z.boolean().optional(),
});
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

const positiveInt = z.number().int().positive();

export const ConfigSchema = z.strictObject({
  backend: BackendNameSchema.default('file'),
  controller: AgentConfigSchema.optional(),
  workers: z.array(AgentConfigSchema).default([]),
  /** Request type → chain of backends tried in order (SPEC §3). */
  routes: z.record(z.string(), z.array(BackendNameSchema).min(1)).default({}),
  /** Backends tried after the routed one fails, ending with a person. */
  fallback: z.array(BackendNameSchema).default(['file']),
  /** Exec backend argv (no shell). */
  exec: z.array(z.string()).min(1).optional(),
  /** A ready-made exec command (docs/backends.md); `exec` wins when both are set. */
  execPreset: z.enum(['codex', 'claude', 'gemini']).optional(),
  /** Custom presets by name (validated by the preset schema when used). */
  presets: z.record(z.string(), z.unknown()).default({}),
  maxBlockLines: positiveInt.default(500),
  maxBlockBytes: positiveInt.default(65_536),
  dedupWindowSec: z.number().int().min(0).default(3600),
  contextLines: positiveInt.default(40),
  heuristics: z.boolean().default(false),
  heuristicLines: positiveInt.default(20),
  /**
   * What a heuristic fires on (SPEC §2); each list replaces its default
   * (protocol/heuristics.ts). Phrases match as whole words, in any case.
   */
  heuristicTriggers: z
    .strictObject({
      question: z.boolean().optional(),
      ask: z.array(z.string().trim().min(1)).optional(),
      done: z.array(z.string().trim().min(1)).optional(),
    })
    .optional(),
  controllerTimeoutSec: positiveInt.default(300),
  execTimeoutSec: positiveInt.default(300),
  deliverTimeoutSec: positiveInt.default(600),
  submitRetries: z.number().int().min(0).default(2),
  maxRequestsPerHour: positiveInt.default(20),
  /**
   * Per agent: what a worker may have open at once and ask for (SPEC §9, a
   * flooding agent). A request over a limit is not raised: it is recorded
   * as `request.limited` (once per burst) and a person is called.
   */
  limits: z
    .strictObject({
      maxPendingRequests: positiveInt.default(100),
      maxRequestsPerMinute: positiveInt.default(120),
      maxPendingBytes: positiveInt.default(4 * 1024 * 1024),
    })
    .prefault({}),
  noSplit: z.boolean().default(false),
  /** A pane log is rotated once read past this many bytes (nothing is lost). */
  paneLogMaxBytes: positiveInt.default(8 * 1024 * 1024),
  /** How often a controller's screen is read while it answers (interactive backend), in ms. */
  pollIntervalMs: positiveInt.default(250),
  /**
   * Backstop poll of pane logs, the outbox and hook files, in ms: change
   * notifications come first, so this only matters when one is lost. Slow,
   * so an idle bridge costs next to nothing.
   */
  backstopMs: positiveInt.default(2000),
  /** `macs stop`: seconds an agent gets to exit after the interrupt key. */
  stopGraceSec: positiveInt.default(5),
  /** What `macs hook PreToolUse` denies or asks about (docs/hooks.md). */
  policy: PolicySchema.prefault({}),
  /**
   * How a person is called when a request waits for them or an agent turns
   * approval/error/dead (once per request or state change): the status
   * view's bell, a tmux message, and a command of their own (argv, no shell;
   * the event as JSON on stdin), e.g. ["notify-send", "macs"].
   */
  attention: z
    .strictObject({
      bell: z.boolean().default(true),
      tmuxMessage: z.boolean().default(true),
      notify: z.array(z.string().min(1)).min(1).optional(),
      notifyTimeoutSec: positiveInt.default(10),
    })
    .prefault({}),
});

export type MacsConfig = z.infer<typeof ConfigSchema>;
export type MacsConfigInput = z.input<typeof ConfigSchema>;
