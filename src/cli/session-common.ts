import { accessSync, constants } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { builtFile, packageDir } from '../config/package.js';
import { ConfigError, MacsError } from '../errors.js';
import { defaultSocketName } from '../session/session-layout.js';
import { readSessionRecord, type SessionRecord } from '../session/record.js';
import { isSessionRunning } from '../session/tmux-check.js';
import { createTmuxClient, type TmuxClient } from '../tmux/client.js';
import { tmuxSocketPath } from '../tmux/probe.js';
import type { HomePaths } from '../home/paths.js';
import type { CliDeps, CommonOptions } from './options.js';

/**
 * How to run macs itself in the session's bridge and status windows: the
 * built `dist/main.js` when this runs from the build, else (running from the
 * TypeScript sources) the script and loader flags of this process.
 */
export function resolveMacsArgv(): string[] {
  const main = builtFile('main.js');
  if (main) return [process.execPath, main];
  return [
    process.execPath,
    ...process.execArgv,
    process.argv[1] ?? path.join(packageDir(), 'src', 'main.ts'),
  ];
}

/** Whether an executable `macs` is on this PATH. */
function macsOnPath(env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, 'macs'), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

/**
 * How a person runs macs, for hints: `macs` when it was run so or a `macs`
 * is on the PATH, else `node dist/main.js` (a checkout not installed).
 */
export function selfCommand(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const script = process.argv[1] ?? '';
  if (!script || path.basename(script) === 'macs' || macsOnPath(env))
    return 'macs';
  const relative = path.relative(cwd, script);
  return `node ${relative.startsWith('..') ? script : relative}`;
}

/** A macs command line for hints, with the flags that point at this session. */
export function hintCommand(
  sub: string,
  opts: CommonOptions,
  deps: Pick<CliDeps, 'cwd' | 'env'>,
): string {
  const flags = [
    ...(opts.home && opts.home !== deps.env.MACS_HOME
      ? [`--home ${opts.home}`]
      : []),
    ...(opts.tmuxSocket && opts.tmuxSocket !== deps.env.MACS_TMUX_SOCKET
      ? [`--tmux-socket ${opts.tmuxSocket}`]
      : []),
  ];
  return [selfCommand(deps.cwd, deps.env), sub, ...flags].join(' ');
}

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
  opts: CommonOptions,
  paths: HomePaths,
  env: NodeJS.ProcessEnv,
  record?: SessionRecord,
): Promise<string> {
  if (opts.tmuxSocket) return opts.tmuxSocket;
  const recorded = record ?? (await readSessionRecord(paths));
  if (recorded) return recorded.socket;
  return defaultSessionSocket(paths, env);
}

/** Both ends of the terminal are a TTY (attaching makes sense). */
export function isOnTerminal(deps: Pick<CliDeps, 'stdinIsTTY'>): boolean {
  return deps.stdinIsTTY && Boolean(process.stdout.isTTY);
}

/**
 * The running session of this home, for commands that change it (`macs
 * add`, `macs restart`): its record and a tmux client on its server.
 * Throws (exit 1) when no session runs.
 */
export async function openRunningSession(
  opts: CommonOptions,
  deps: CliDeps,
  paths: HomePaths,
): Promise<{ record: SessionRecord; tmux: TmuxClient }> {
  const record = await readSessionRecord(paths);
  const socket = await resolveSessionSocket(opts, paths, deps.env, record);
  const tmux = createTmuxClient(socket, deps.runTmux);
  if (!record || !(await isSessionRunning(tmux, record.session)))
    throw new MacsError(
      `no macs session is running for ${paths.home} (tmux -L ${socket})`,
      { hint: `start one with \`${hintCommand('start', opts, deps)}\`` },
    );
  return { record, tmux };
}
