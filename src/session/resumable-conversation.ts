/**
 * Pure: continuing an agent's conversation (docs/session.md, "Conversations
 * that survive"). Each agent program that can resume says how on its own
 * command line, checked with `--help` at the pinned versions:
 *
 * - Claude Code: `claude --resume <session id>` (its hooks report the id);
 * - Codex CLI: `codex resume <thread id> [options]` (a subcommand that takes
 *   the same options as `codex`; the notify payload names the thread);
 * - Gemini CLI: `gemini --resume <session id>`; it has no hooks here, so
 *   macs names the session itself when it starts one (`--session-id <uuid>`,
 *   a new one each time) and resumes it only when Gemini's own records show
 *   it.
 *
 * An agent's recorded launch (session.json `launch`) is never changed: the
 * arguments are added to a copy each time the program is run.
 */
import { randomUUID } from 'node:crypto';
import { LAUNCH_SCRIPT } from './session-layout.js';
import type { AgentLaunch } from './record.js';

/** The programs macs knows how to resume, by preset name. */
export const RESUMABLE_PRESETS = ['claude', 'codex', 'gemini'] as const;
export type ResumablePreset = (typeof RESUMABLE_PRESETS)[number];

export function isResumablePreset(preset: string): preset is ResumablePreset {
  return (RESUMABLE_PRESETS as readonly string[]).includes(preset);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A conversation id as the three programs write them: a UUID. Anything else
 * (a forged or garbled value) is never recorded nor put on a command line.
 */
export function isConversationId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** A new id for a Gemini session macs starts. */
export function newConversationId(): string {
  return randomUUID();
}

/**
 * Where a launch's program sits in its argv (see session-layout.ts
 * buildLaunchArgv).
 */
type LaunchShape =
  { kind: 'argv'; program: number } | { kind: 'shell'; text: number };

function launchShape(argv: readonly string[]): LaunchShape | undefined {
  if (argv[0] !== 'sh' || argv[1] !== '-c' || argv[2] !== LAUNCH_SCRIPT)
    return undefined;
  // argv[3] is the launcher's $0, argv[4] the program it checks on PATH.
  if (argv[5] === 'sh' && argv[6] === '-c' && argv.length === 8)
    return { kind: 'shell', text: 7 };
  return argv.length > 5 ? { kind: 'argv', program: 5 } : undefined;
}

function quote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** The words of the agent's own command (for the checks below), best effort. */
function commandWords(argv: readonly string[]): string[] {
  const shape = launchShape(argv);
  if (!shape) return [];
  if (shape.kind === 'argv') return argv.slice(shape.program);
  return (argv[shape.text] ?? '').split(/\s+/).map((w) => w.replace(/'/g, ''));
}

/** Options that already choose a conversation: macs then adds none. */
const OWN_CHOICE: Record<ResumablePreset, RegExp> = {
  claude: /^(?:-r|-c|--resume|--continue|--session-id|--from-pr)(?:=|$)/,
  codex: /^(?:resume|fork|exec|e|review)$/,
  gemini: /^(?:-r|--resume|--session-id|--session-file)(?:=|$)/,
};

export function choosesOwnConversation(
  preset: ResumablePreset,
  argv: readonly string[],
): boolean {
  return commandWords(argv).some((word) => OWN_CHOICE[preset].test(word));
}

/**
 * The launch with `args` added: after the program (`at: 'program'`, for a
 * subcommand) or at the end (options). A shell command line gets them only
 * when it is one simple command (the launcher `exec`s it); otherwise
 * undefined: macs cannot say where they would go.
 */
export function withLaunchArgs(
  launch: AgentLaunch,
  args: readonly string[],
  at: 'program' | 'end',
): AgentLaunch | undefined {
  const shape = launchShape(launch.argv);
  if (!shape) return undefined;
  if (shape.kind === 'argv') {
    const argv = [...launch.argv];
    argv.splice(at === 'program' ? shape.program + 1 : argv.length, 0, ...args);
    return { ...launch, argv };
  }
  const text = launch.argv[shape.text] ?? '';
  const simple = /^exec (\S+)(.*)$/s.exec(text);
  if (!simple || /[;&|()\n]/.test(text)) return undefined;
  const added = args.map(quote).join(' ');
  const next =
    at === 'program'
      ? `exec ${simple[1] ?? ''} ${added}${simple[2] ?? ''}`
      : `${text} ${added}`;
  const argv = [...launch.argv];
  argv[shape.text] = next;
  return { ...launch, argv };
}

/** The launch that continues conversation `id`; undefined when it cannot be built. */
export function buildResumeLaunch(
  launch: AgentLaunch,
  preset: ResumablePreset,
  id: string,
): AgentLaunch | undefined {
  if (!isConversationId(id)) return undefined;
  switch (preset) {
    case 'claude':
    case 'gemini':
      return withLaunchArgs(launch, ['--resume', id], 'end');
    case 'codex':
      return withLaunchArgs(launch, ['resume', id], 'program');
  }
}

/** A new Gemini session with the id macs chose (`--session-id`). */
export function buildNamedSessionLaunch(
  launch: AgentLaunch,
  id: string,
): AgentLaunch | undefined {
  return isConversationId(id)
    ? withLaunchArgs(launch, ['--session-id', id], 'end')
    : undefined;
}
