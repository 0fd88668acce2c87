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
  };
}

export function paneLogPath(paths: HomePaths, agent: string): string {
  return path.join(paths.panes, `${agent}.log`);
}
