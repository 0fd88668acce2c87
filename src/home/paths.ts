import { existsSync } from 'node:fs';
import path from 'node:path';

/** Where everything lives under a macs home (SPEC §4). */
export interface HomePaths {
  home: string;
  inbox: string;
  outbox: string;
  archive: string;
  runtime: string;
  panes: string;
  state: string;
  events: string;
  logFile: string;
  config: string;
  /** `.macs/session.json`: the running session of `macs start`. */
  sessionFile: string;
  /** `.macs/session.stopped.json`: the last session `macs stop` ended. */
  stoppedSessionFile: string;
}

export function resolveHomePaths(home: string): HomePaths {
  const root = path.resolve(home);
  const runtime = path.join(root, '.macs');
  return {
    home: root,
    inbox: path.join(root, 'inbox'),
    outbox: path.join(root, 'outbox'),
    archive: path.join(root, 'archive'),
    runtime,
    panes: path.join(runtime, 'panes'),
    state: path.join(runtime, 'state'),
    events: path.join(runtime, 'events'),
    logFile: path.join(runtime, 'macs.log'),
    config: path.join(root, 'macs.config.json'),
    sessionFile: path.join(runtime, 'session.json'),
    stoppedSessionFile: path.join(runtime, 'session.stopped.json'),
  };
}

export function paneLogPath(paths: HomePaths, agent: string): string {
  return path.join(paths.panes, `${agent}.log`);
}

/**
 * The nearest folder at or above `from` that is a macs home (it holds
 * `.macs/` or `macs.config.json`), or undefined.
 */
export function findHome(from: string): string | undefined {
  let dir = path.resolve(from);
  for (;;) {
    if (
      existsSync(path.join(dir, '.macs')) ||
      existsSync(path.join(dir, 'macs.config.json'))
    )
      return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
