/**
 * Which tmux server a home's session lives on, and the running session of
 * a home for the commands that change it (`macs add`, `macs restart`).
 */
import { realpath } from 'node:fs/promises';
import { ConfigError, MacsError } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import { createTmuxClient, type TmuxClient } from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';
import { readSessionRecord, type SessionRecord } from './record.js';
import { hintCommand, type Invocation } from './self-command.js';
import { tmuxSocketPath } from '../tmux/probe.js';
import { defaultSocketName } from './session-layout.js';
import { isSessionRunning } from './tmux-check.js';

/** The private server of a home: `macs-<project>-<hash>` (session-layout.ts). */
export async function defaultSessionSocket(
  paths: HomePaths,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const home = await realpath(paths.home).catch(() => paths.home);
  const uid = process.getuid?.() ?? 0;
  const name = defaultSocketName(home, env, uid);
  if (!name) {
    throw new ConfigError(
      `the tmux socket for this home would not fit a unix socket path (${tmuxSocketPath('macs-00000000', env, uid)} is too long)`,
      {
        hint: 'set TMUX_TMPDIR to a short folder such as /tmp, or name a server with --tmux-socket NAME',
      },
    );
  }
  return name;
}

/**
 * The tmux server of a home's session: `--tmux-socket`/MACS_TMUX_SOCKET,
 * else the one the session recorded, else the home's default.
 */
export async function resolveSessionSocket(
  opts: { tmuxSocket?: string },
  paths: HomePaths,
  env: NodeJS.ProcessEnv,
  record?: SessionRecord,
): Promise<string> {
  if (opts.tmuxSocket) return opts.tmuxSocket;
  const recorded = record ?? (await readSessionRecord(paths));
  if (recorded) return recorded.socket;
  return defaultSessionSocket(paths, env);
}

/**
 * The running session of this home, for commands that change it (`macs
 * add`, `macs restart`): its record and a tmux client on its server.
 * Throws (exit 1) when no session runs.
 */
export async function openRunningSession(
  inv: Invocation,
  runTmux: RunTmux,
  paths: HomePaths,
): Promise<{ record: SessionRecord; tmux: TmuxClient }> {
  const record = await readSessionRecord(paths);
  const socket = await resolveSessionSocket(inv, paths, inv.env, record);
  const tmux = createTmuxClient(socket, runTmux);
  if (!record || !(await isSessionRunning(tmux, record.session)))
    throw new MacsError(
      `no macs session is running for ${paths.home} (tmux -L ${socket})`,
      { hint: `start one with \`${hintCommand('start', inv, inv)}\`` },
    );
  return { record, tmux };
}
