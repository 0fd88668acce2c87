/**
 * How macs runs itself (in the session's bridge and status windows) and how
 * a person runs it (in hints: `macs stop --home …`).
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { builtFile, packageDir } from '../config/package.js';

/**
 * How macs was run: the flags that point at a home's session, the folder
 * and the environment. Hints name the same session with it.
 */
export interface Invocation {
  home?: string;
  tmuxSocket?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Node's flags for the session's long-lived processes (its bridge, its
 * status view, a controller's `macs mcp`). `--no-memory-reducer`: V8's
 * memory reducer runs a full garbage collection in each process some
 * seconds after it goes quiet, to hand memory back; for these processes,
 * quiet most of the time, that collection was most of an idle hub's CPU in
 * its first minute, for about 9 MB less resident memory each
 * (docs/performance.md). Their heap is still collected as it grows. Node
 * takes this flag only on its command line, not in NODE_OPTIONS.
 */
export const LONG_LIVED_NODE_FLAGS: readonly string[] = [
  '--no-memory-reducer',
];

/**
 * How to run macs itself in the session's bridge and status windows and a
 * controller's MCP server: the built `dist/main.js` when this runs from the
 * build, else (running from the TypeScript sources) the script and loader
 * flags of this process; with LONG_LIVED_NODE_FLAGS.
 */
export function resolveMacsArgv(): string[] {
  const main = builtFile('main.js');
  if (main) return [process.execPath, ...LONG_LIVED_NODE_FLAGS, main];
  return [
    process.execPath,
    ...process.execArgv,
    ...LONG_LIVED_NODE_FLAGS,
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
  opts: Pick<Invocation, 'home' | 'tmuxSocket'>,
  deps: Pick<Invocation, 'cwd' | 'env'>,
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

/** `hintCommand` for an invocation: `hint('stop')` is `macs stop --home …`. */
export function hinter(inv: Invocation): (sub: string) => string {
  return (sub) => hintCommand(sub, inv, inv);
}
