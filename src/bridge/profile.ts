/**
 * From a preset (config/presets/) to what the bridge needs of it: how to
 * type into the agent, how to read its screen, its dialog and hooks; and
 * which preset a pane's program stands for when none is named.
 */
import { getPreset, listPresetNames } from '../config/presets/index.js';
import {
  isInteractiveShellArgv,
  isShellCommand,
} from '../config/presets/shell.js';
import type { Preset } from '../config/presets/types.js';
import type { MacsConfig } from '../config/schema.js';
import { classifyScreen } from '../screen/classify.js';
import type { PaneInfo } from '../tmux/client.js';
import {
  programsOf,
  readForegroundProcesses,
  readProcessArgv,
  type ProcessInfo,
} from '../tmux/processes.js';
import type { AgentProfile } from './agent-context.js';

/** A preset turned into what the supervisor needs. */
export function profileFromPreset(preset: Preset): AgentProfile {
  return {
    preset: preset.name,
    rules: {
      submitKey: preset.submitKey,
      submitDelayMs: preset.submitDelayMs,
      bracketed: preset.paste.bracketed,
      maxLiteralChars: preset.paste.maxLiteralChars,
      typeIntoUnknown: !preset.knownScreens,
      ...(isShellCommand(preset.program) ? { shellPromptOnly: true } : {}),
    },
    classify: (screen) => classifyScreen(screen, preset).state,
    classifyScreen: (screen) => classifyScreen(screen, preset),
    knownScreens: preset.knownScreens,
    ...(preset.dialog ? { dialog: preset.dialog } : {}),
    hooks: preset.hooks,
  };
}

/**
 * The preset whose program is running in the pane (the config's custom
 * presets first, then the built-in ones; `bash` is the shell preset's),
 * else `generic`. The command's name alone never makes a shell: `sh -c
 * 'cat > f'` is named `sh` by tmux and runs no prompt (see
 * followedPresetName for a shell at its prompt).
 */
export function detectPresetName(
  currentCommand: string,
  config: MacsConfig,
): string {
  const names = [
    ...Object.keys(config.presets),
    ...listPresetNames().filter((n) => !(n in config.presets)),
  ];
  for (const name of names) {
    if (name === 'generic') continue;
    const preset = getPreset(name, config.presets);
    if (preset.program && preset.program === currentCommand) return name;
  }
  return 'generic';
}

/**
 * The preset an agent whose preset was not named follows to, now that its
 * pane runs `currentCommand` (with `foreground`, that program's processes):
 * the preset of a known agent's program (`node …/codex.js` is codex's), the
 * shell's preset back at a shell; a command a shell agent runs that is no
 * agent of a preset (a script, `sleep`) leaves it the shell's, since the
 * shell is still the agent and the answer goes to whichever program asked
 * (typist/wait-typeable.ts).
 */
export function followedPresetName(
  currentCommand: string,
  foreground: readonly Pick<ProcessInfo, 'argv'>[] | undefined,
  config: MacsConfig,
  current: string,
): string {
  const direct = detectPresetName(currentCommand, config);
  if (direct !== 'generic') return direct;
  if (isShellCommand(currentCommand))
    // Any shell at its prompt (`zsh`, `fish`) is the shell preset's; a shell
    // running a script or a command string is not an agent of a preset.
    return foreground &&
      foreground.length > 0 &&
      foreground.every((p) => isInteractiveShellArgv(p.argv))
      ? 'shell'
      : direct;
  for (const process of foreground ?? [])
    for (const program of programsOf(process.argv)) {
      const name = detectPresetName(program, config);
      if (name !== 'generic') return name;
    }
  const currentProgram = getPreset(current, config.presets).program;
  return isShellCommand(currentProgram) ? current : direct;
}

/**
 * The preset for a pane none was named for: its program's
 * (detectPresetName, an interpreter's script included), or, for a pane
 * whose own process is an interactive shell that now runs a command of no
 * preset (`sleep 30`, `python3 ask.py`), the shell's: the shell is the
 * agent, and a command it runs is never typed into for a person's send.
 */
export async function detectPanePresetName(
  info: Pick<PaneInfo, 'pid' | 'currentCommand'>,
  config: MacsConfig,
): Promise<string> {
  const direct = detectPresetName(info.currentCommand, config);
  if (direct !== 'generic') return direct;
  const [foreground, root] = await Promise.all([
    readForegroundProcesses(info.pid),
    readProcessArgv(info.pid),
  ]);
  const underShell = root !== undefined && isInteractiveShellArgv(root);
  return followedPresetName(
    info.currentCommand,
    foreground,
    config,
    underShell ? 'shell' : direct,
  );
}
