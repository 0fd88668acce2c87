import { z } from 'zod';

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
  /** Custom presets by name (validated by the preset schema when used). */
  presets: z.record(z.string(), z.unknown()).default({}),
  maxBlockLines: positiveInt.default(500),
  maxBlockBytes: positiveInt.default(65_536),
  dedupWindowSec: z.number().int().min(0).default(3600),
  contextLines: positiveInt.default(40),
  heuristics: z.boolean().default(false),
  heuristicLines: positiveInt.default(20),
  controllerTimeoutSec: positiveInt.default(300),
  execTimeoutSec: positiveInt.default(300),
  deliverTimeoutSec: positiveInt.default(600),
  submitRetries: z.number().int().min(0).default(2),
  maxRequestsPerHour: positiveInt.default(20),
  noSplit: z.boolean().default(false),
  /** Backstop poll of pane logs and the outbox, in ms. */
  pollIntervalMs: positiveInt.default(250),
});

export type MacsConfig = z.infer<typeof ConfigSchema>;
export type MacsConfigInput = z.input<typeof ConfigSchema>;
