import { TmuxError } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import type { TmuxClient } from '../tmux/client.js';
import {
  buildNewWindowArgs,
  buildRespawnPaneArgs,
  buildSetHookArgs,
  buildSetWindowOptionArgs,
} from '../tmux/session-args.js';
import {
  BRIDGE_WINDOW,
  PLACEHOLDER_COMMAND,
  STATUS_WINDOW,
  buildBridgeCommand,
  buildStatusCommand,
  STATUS_HOOK,
} from './session-layout.js';
import { writeSessionRecord, type SessionRecord } from './record.js';

/**
 * `macs start --resume` on a running session: the agents keep running, and
 * the bridge and status windows are started again (a closed window is made
 * anew). The new bridge resumes every open request of the session: the
 * same session, the same panes, the same programs (docs/reliability.md).
 */
export async function restartSessionWindows(options: {
  tmux: TmuxClient;
  paths: HomePaths;
  record: SessionRecord;
  macsArgv: readonly string[];
  configFile?: string;
}): Promise<SessionRecord> {
  const { tmux, paths, record } = options;
  const env = { MACS_HOME: paths.home, MACS_TMUX_SOCKET: record.socket };
  const windows = [
    {
      key: 'bridge' as const,
      window: BRIDGE_WINDOW,
      command: buildBridgeCommand({
        macsArgv: options.macsArgv,
        home: paths.home,
        socket: record.socket,
        ...(options.configFile ? { config: options.configFile } : {}),
        ...(record.nonInteractive ? { nonInteractive: true } : {}),
      }),
    },
    {
      key: 'status' as const,
      window: STATUS_WINDOW,
      command: buildStatusCommand({
        macsArgv: options.macsArgv,
        home: paths.home,
        socket: record.socket,
      }),
    },
  ];
  const panes = { ...record.panes };
  // The status view starts when a client attaches (session-layout.ts
  // STATUS_SCRIPT).
  await tmux.command(
    buildSetHookArgs(record.session, 'client-attached', STATUS_HOOK),
  );
  for (const { key, window, command } of windows) {
    let pane = panes[key];
    if (!(await tmux.paneInfo(pane).catch(() => undefined))) {
      pane = (
        await tmux.command(
          buildNewWindowArgs({
            session: record.session,
            window,
            cwd: paths.home,
            command: PLACEHOLDER_COMMAND,
          }),
        )
      ).trim();
      if (!/^%\d+$/.test(pane))
        throw new TmuxError(
          `tmux new-window did not print a pane id: '${pane}'`,
        );
      await tmux.command(
        buildSetWindowOptionArgs(pane, 'remain-on-exit', 'on'),
      );
      panes[key] = pane;
    }
    await tmux.command(
      buildRespawnPaneArgs({ pane, cwd: paths.home, env, command }),
    );
  }
  // A stop that did not finish is over: the session runs on.
  const { stopping: _stopping, ...running } = record;
  const updated = { ...running, panes };
  await writeSessionRecord(paths, updated);
  return updated;
}
