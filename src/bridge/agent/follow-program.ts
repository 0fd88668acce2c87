/**
 * An agent whose preset was not named (`macs bridge --worker-pane` on a
 * shell pane, a tagged pane the config does not describe) follows its
 * pane's program: when `#{pane_current_command}` changes (an agent started
 * in the shell, or exited back to it), its preset is chosen again
 * (bridge/profile.ts followedPresetName), saved in its state and told as a
 * `preset.changed` event. A named preset never changes.
 */
import { getPreset } from '../../config/presets/index.js';
import type { PaneInfo } from '../../tmux/client.js';
import {
  liveProcesses,
  readForegroundProcesses,
  type ProcessInfo,
} from '../../tmux/processes.js';
import type { AgentContext } from '../agent-context.js';
import { followedPresetName, profileFromPreset } from '../profile.js';

export interface ProgramFollower {
  /** Look at the pane's program; true when the preset changed with it. */
  follow(info: PaneInfo): Promise<boolean>;
}

/**
 * Whether the pane's foreground is between two programs: its process group
 * has no process left, or only one that is ending (no argv: a zombie not
 * yet reaped). An agent that just exited leaves this for a moment before
 * its shell takes the terminal back, and tmux then names the pane's own
 * program (the shell), so its preset cannot be told yet.
 */
function inBetween(foreground: readonly ProcessInfo[] | undefined): boolean {
  return foreground !== undefined && liveProcesses(foreground).length === 0;
}

export function createProgramFollower(
  ctx: AgentContext,
  readForeground: typeof readForegroundProcesses = readForegroundProcesses,
): ProgramFollower {
  /** The pane's program when the preset last followed it. */
  let followed: string | undefined;
  return {
    async follow(info) {
      if (!ctx.followsProgram || info.currentCommand === followed) return false;
      const previous = followed;
      followed = info.currentCommand;
      const from = ctx.profile.preset;
      // An interpreter's script names the agent (`node …/codex.js`); a
      // shell's argv says whether it is at its prompt.
      const foreground = await readForeground(info.pid);
      if (inBetween(foreground)) {
        // Looked at again at the next reading (the shell's prompt is
        // output, read at once).
        if (followed === info.currentCommand) followed = previous;
        return false;
      }
      const to = followedPresetName(
        info.currentCommand,
        foreground,
        ctx.config,
        from,
      );
      if (to === from) return false;
      ctx.profile = profileFromPreset(getPreset(to, ctx.config.presets));
      await ctx.serial(async () => {
        ctx.current().preset = to;
        ctx.saveLater();
        await ctx.emit({
          type: 'preset.changed',
          data: { from, to, program: info.currentCommand, pane: ctx.pane },
        });
      });
      return true;
    },
  };
}
