/**
 * Where `macs attach` puts a terminal: the home's running session, the
 * named agent's pane selected; and what became of the session once a
 * person's tmux client returns (`macs start`, `macs attach`).
 */
import type { HomePaths } from '../home/paths.js';
import { buildSelectPaneArgs, buildSelectWindowArgs } from '../tmux/args.js';
import { createTmuxClient } from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';
import { readSessionRecord, wasSessionStopped } from './record.js';
import { isSessionRunning } from './tmux-check.js';

/** Where an attach goes, or why it cannot. */
export type AttachTarget =
  | { type: 'no-session' }
  | { type: 'not-on-terminal' }
  | { type: 'no-agent'; agents: string[] }
  | { type: 'ready'; sessionId: string | undefined };

/**
 * The session on `socket` to attach to, checked in this order: it runs,
 * the person is on a terminal, the agent (when named) is one of its own;
 * then the agent's pane (and window) is selected.
 */
export async function prepareAttach(options: {
  paths: HomePaths;
  socket: string;
  runTmux: RunTmux;
  onTerminal: boolean;
  agent?: string | undefined;
}): Promise<AttachTarget> {
  const tmux = createTmuxClient(options.socket, options.runTmux);
  if (!(await isSessionRunning(tmux))) return { type: 'no-session' };
  if (!options.onTerminal) return { type: 'not-on-terminal' };
  const record = await readSessionRecord(options.paths);
  const { agent } = options;
  if (agent !== undefined) {
    const pane = record?.agents.find((a) => a.name === agent)?.pane;
    if (!pane)
      return {
        type: 'no-agent',
        agents: record?.agents.map((a) => a.name) ?? [],
      };
    await tmux.command(buildSelectWindowArgs(pane));
    await tmux.command(buildSelectPaneArgs(pane));
  }
  return { type: 'ready', sessionId: record?.id };
}

/**
 * The session once a person's tmux client has returned: still `running`
 * (the person detached), `stopped` by `macs stop` from another terminal,
 * or `gone` (its tmux server was killed or crashed).
 */
export async function sessionAfterAttach(
  paths: HomePaths,
  socket: string,
  sessionId: string | undefined,
  runTmux: RunTmux,
): Promise<'running' | 'stopped' | 'gone'> {
  if (await isSessionRunning(createTmuxClient(socket, runTmux)))
    return 'running';
  return (await wasSessionStopped(paths, sessionId)) ? 'stopped' : 'gone';
}
