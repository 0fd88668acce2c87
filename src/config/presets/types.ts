/**
 * The shape of a preset: what macs knows about one kind of agent (SPEC §8).
 *
 * Screen rules are JavaScript regular expression sources. `screen/classify`
 * compiles each with the `m` flag (so `^`/`$` match at line boundaries) and
 * adds `i` only when the rule says `ignoreCase: true`. They are matched
 * against the cleaned screen text: escape sequences removed, non-breaking
 * spaces turned into spaces, every line right-trimmed and trailing blank
 * lines dropped. A rule with `lastLines: N` sees only the last N lines of
 * that text, which keeps old transcript lines from matching.
 */
import * as z from 'zod/mini';
import '../zod.js';
import { PatternSchema } from '../pattern.js';
import { ConfigError } from '../../errors.js';

/**
 * The states a preset has screen rules for, in classification order. Screens
 * never yield `dead` (config/states.ts lists every state).
 */
export const SCREEN_STATES = ['approval', 'working', 'error', 'idle'] as const;
export type ScreenStateName = (typeof SCREEN_STATES)[number];

/** Does a regex source have a named group `elapsed`? */
function hasElapsedGroup(source: string): boolean {
  return source.includes('(?<elapsed>');
}

const RuleObjectSchema = z
  .strictObject({
    /** A short id reported as `<state>:<name>`; defaults to the rule's index. */
    name: z.optional(z.string().check(z.minLength(1))),
    pattern: PatternSchema,
    /** Match only the last N lines of the cleaned screen. */
    lastLines: z.optional(z.number().check(z.int(), z.positive())),
    ignoreCase: z._default(z.boolean(), false),
    /**
     * An error rule that is checked before the approval and working rules:
     * the program has ended or given up, so what a busy screen left behind
     * (a spinner line, a dialog) no longer counts (classify.ts).
     */
    final: z.optional(z.boolean()),
    /**
     * Match only when the duration the pattern's `elapsed` group captured
     * (`45s`, `11m 02s`, `1h 3m`) is at least this many seconds: how long
     * the screen says something has lasted.
     */
    minElapsedSec: z.optional(z.number().check(z.int(), z.positive())),
  })
  .check(
    z.refine(
      (rule) =>
        rule.minElapsedSec === undefined || hasElapsedGroup(rule.pattern),
      {
        message: 'a rule with minElapsedSec needs a group (?<elapsed>…)',
        path: ['pattern'],
      },
    ),
  );

/** A rule is a regex source, or an object with options. */
export const ScreenRuleSchema = z.pipe(
  z.union([PatternSchema, RuleObjectSchema]),
  z.transform((rule) =>
    typeof rule === 'string' ? { pattern: rule, ignoreCase: false } : rule,
  ),
);
export type ScreenRule = z.output<typeof ScreenRuleSchema>;

const RuleListSchema = z._default(z.array(ScreenRuleSchema), []);

export const PresetStatesSchema = z.strictObject({
  working: RuleListSchema,
  idle: RuleListSchema,
  approval: RuleListSchema,
  error: RuleListSchema,
});

export const PasteSchema = z.strictObject({
  /** Paste with bracketed-paste markers (`paste-buffer -p`). */
  bracketed: z._default(z.boolean(), true),
  /** A single line up to this many characters may be typed with `send-keys -l`. */
  maxLiteralChars: z._default(z.number().check(z.int(), z.nonnegative()), 200),
});

export const HooksKindSchema = z.enum(['claude', 'codex', 'none']);

/**
 * A tmux key name (`send-keys` without `-l`): a named key, a control or meta
 * chord, or one lowercase letter or digit. Never text: a screen decision
 * presses keys only.
 */
export const KeyNameSchema = z
  .string()
  .check(
    z.regex(
      /^(?:Enter|Escape|Tab|BTab|Space|Up|Down|Left|Right|Home|End|[CM]-[a-z]|[a-z0-9])$/,
      { message: 'not a tmux key name (Enter, Escape, Tab, Up, C-c, y, …)' },
    ),
  );

/**
 * A permission dialog a preset knows how to answer (docs/presets.md,
 * "dialog"). Each pattern is a regular expression source matched against
 * one cleaned screen line (escape sequences removed, right-trimmed). The
 * dialog is read from the bottom of the screen up: the last line matching
 * `selected` (the highlighted option that `allowKeys` choose), then below it
 * the first line matching `bottom` (after which only blank lines may follow),
 * and above it the nearest line matching `top`, at most `maxLines` away. The
 * lines from `top` to `bottom` are the dialog's text.
 */
export const PresetDialogSchema = z.strictObject({
  /** A short name for events and attributes (`permission`). */
  name: z.string().check(z.regex(/^[a-z][a-z0-9-]{0,31}$/)),
  top: PatternSchema,
  selected: PatternSchema,
  bottom: PatternSchema,
  maxLines: z._default(
    z.number().check(z.int(), z.positive(), z.maximum(200)),
    60,
  ),
  /** The keys that take the highlighted option (allow), in order. */
  allowKeys: z.array(KeyNameSchema).check(z.minLength(1), z.maxLength(4)),
  /** The keys that refuse (deny), in order. */
  denyKeys: z.array(KeyNameSchema).check(z.minLength(1), z.maxLength(4)),
});
export type PresetDialog = z.output<typeof PresetDialogSchema>;

export const PresetSchema = z.strictObject({
  name: z.string().check(z.minLength(1)),
  description: z._default(z.string(), ''),
  /**
   * The executable name used for pane discovery (`#{pane_current_command}`);
   * empty for `generic`, which no pane is discovered by.
   */
  program: z.string(),
  args: z._default(z.array(z.string()), []),
  states: z.prefault(PresetStatesSchema, {}),
  /** A tmux key name sent alone after the text, e.g. `Enter` or `C-m`. */
  submitKey: z._default(z.string().check(z.minLength(1)), 'Enter'),
  submitDelayMs: z._default(z.number().check(z.int(), z.nonnegative()), 200),
  paste: z.prefault(PasteSchema, {}),
  hooks: z._default(HooksKindSchema, 'none'),
  /**
   * The preset's rules read every screen its program shows at work (a coding
   * agent's presets). A screen none of them reads (`unknown`: a sign-in menu,
   * an overlay, the shell the agent exited to) is then never typed into:
   * delivery waits and reports. Off for programs macs does not know
   * (`generic`) and shells, whose quiet unknown screen may be typed into.
   */
  knownScreens: z._default(z.boolean(), false),
  /**
   * Literal text (not a regex, case-insensitive) that means "working" when it
   * is in the last BUSY_MARKER_LINES lines; checked after the working rules.
   * `null` turns it off.
   */
  busyMarker: z._default(
    z.nullable(z.string().check(z.minLength(1))),
    'esc to interrupt',
  ),
  /**
   * The permission dialog its screen shows, answered with keys (screen
   * approvals, docs/backends.md). Absent: no screen approvals. Builtin only:
   * a custom preset never has one (index.ts drops it).
   */
  dialog: z.optional(PresetDialogSchema),
  /**
   * Environment variables that, set to `true`, make the program start
   * without its interactive screen (Gemini CLI reads `CI` and
   * `GITHUB_ACTIONS` so, then exits asking for `--prompt`). `macs start`
   * warns when one is set for the agent. Builtin only.
   */
  headlessEnv: z.optional(z.array(z.string().check(z.minLength(1)))),
});

export type Preset = z.output<typeof PresetSchema>;
export type PresetInput = z.input<typeof PresetSchema>;

/** How many bottom lines the busy marker is looked for in. */
export const BUSY_MARKER_LINES = 25;

/**
 * A preset as written in `macs.config.json` under `presets.<name>`: every
 * field optional, plus `extends` naming a builtin or another custom preset.
 */
export const CustomPresetSchema = z.strictObject({
  extends: z.optional(z.string().check(z.minLength(1))),
  name: z.optional(z.string().check(z.minLength(1))),
  description: z.optional(z.string()),
  program: z.optional(z.string().check(z.minLength(1))),
  args: z.optional(z.array(z.string())),
  states: z.optional(
    z.strictObject({
      working: z.optional(z.array(z.unknown())),
      idle: z.optional(z.array(z.unknown())),
      approval: z.optional(z.array(z.unknown())),
      error: z.optional(z.array(z.unknown())),
    }),
  ),
  submitKey: z.optional(z.string().check(z.minLength(1))),
  submitDelayMs: z.optional(z.number().check(z.int(), z.nonnegative())),
  paste: z.optional(
    z.strictObject({
      bracketed: z.optional(z.boolean()),
      maxLiteralChars: z.optional(z.number().check(z.int(), z.nonnegative())),
    }),
  ),
  hooks: z.optional(HooksKindSchema),
  knownScreens: z.optional(z.boolean()),
  busyMarker: z.optional(z.nullable(z.string().check(z.minLength(1)))),
});
export type CustomPreset = z.output<typeof CustomPresetSchema>;

const MAX_REPORTED_ISSUES = 5;

/** `states.working.0: not a valid regular expression` lines for an error. */
export function formatIssues(error: z.core.$ZodError, prefix = ''): string {
  return error.issues
    .slice(0, MAX_REPORTED_ISSUES)
    .map((issue) => {
      const path = [prefix, ...issue.path.map(String)]
        .filter((part) => part !== '')
        .join('.');
      return `${path || '(root)'}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * Validate a preset and fill in its defaults. Throws a ConfigError naming
 * the dotted path of each problem (up to five).
 */
export function parsePreset(input: unknown): Preset {
  const result = PresetSchema.safeParse(input);
  if (result.success) return result.data;
  const name =
    typeof input === 'object' && input !== null && 'name' in input
      ? String(input.name)
      : 'preset';
  throw new ConfigError(
    `invalid preset "${name}": ${formatIssues(result.error)}`,
    {
      hint: 'see docs/presets.md for the preset fields',
      cause: result.error,
    },
  );
}
