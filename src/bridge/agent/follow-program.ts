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
import { readForegroundProcesses } from '../../tmux/processes.js';
import type { AgentContext } from '../agent-context.js';
import { followedPresetName, profileFromPreset } from '../profile.js';

export interface ProgramFollower {
  /** Look at the pane's program; true when the preset changed with it. */
  follow(info: PaneInfo): Promise<boolean>;
}

export function createProgramFollower(ctx: AgentContext): ProgramFollower {
  /** The pane's program when the preset last followed it. */
  let followed: string | undefined;
  return {
    async follow(info) {
      if (!ctx.followsProgram || info.currentCommand === followed) return false;
      followed = info.currentCommand;
      const from = ctx.profile.preset;
      // An interpreter's script names the agent (`node …/codex.js`); a
      // shell's argv says whether it is at its prompt.
      const foreground = await readForegroundProcesses(info.pid);
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
