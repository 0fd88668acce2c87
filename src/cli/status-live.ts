// The live view of `macs status` and its --watch streams (status.ts loads
// this module only for them): the home's live status opened
// (operations/live-status.ts), then drawn (ui/live-view.ts) or printed.
import type { MacsConfig } from '../config/schema.js';
import {
  openLiveStatus,
  type LiveStatus as OpenStatus,
} from '../operations/live-status.js';
import { createStatusIntents } from '../operations/status-intents.js';
import { withLinkLine } from '../remote/host-link.js';
import type { HostView } from '../remote/remote-fleet.js';
import type { Snapshot } from '../state/snapshot-schema.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import type { StatusDeps, StatusOptions, StatusTerminal } from './types.js';

/**
 * Print one snapshot per change, until interrupted (no terminal, or --json
 * --watch); at a hub, with each host as last read, on its changes too.
 */
async function streamSnapshots(
  status: OpenStatus,
  deps: CliDeps,
  print: (snapshot: Snapshot, hosts: HostView[] | undefined) => void,
): Promise<number> {
  const { feed, hosts } = status;
  const first = await feed.start();
  await hosts?.firstRead;
  const emit = () => print(feed.current() ?? first, hosts?.views());
  emit();
  const unsubscribe = status.source.subscribe(emit);
  try {
    const signal = await deps.interrupted;
    return signal === 'SIGINT' ? 130 : 0;
  } finally {
    unsubscribe();
    await status.close();
  }
}

/** What `macs status` live (the view or --watch) runs with. */
interface LiveStatus {
  opts: StatusOptions;
  deps: CliDeps;
  ctx: CommandContext;
  config: MacsConfig;
  terminal: StatusTerminal;
  statusDeps: StatusDeps;
}

/** `macs status` on a terminal (the live view), or with --watch. */
export async function runLiveStatus(options: LiveStatus): Promise<number> {
  const { opts, deps, ctx, config, terminal } = options;
  const now = () => Date.now();
  // Without the view's terminal input, nothing else keeps `--watch` running.
  const watchOnly = opts.json === true || !terminal.interactive;
  // At a hub, each host's agents, requests and link join the view and the
  // --watch streams (as `remote` in JSON and lines after this machine's, as
  // `macs status` prints them once). A host's request that waits for a
  // person rings the view's bell too: the host's own bell rings in a view
  // there, which nobody at the hub sees.
  const ring = !watchOnly && config.attention.bell;
  const status = await openLiveStatus({
    paths: ctx.paths,
    log: ctx.log,
    config,
    env: deps.env,
    runTmux: deps.runTmux,
    keepAlive: watchOnly,
    onNeedsPerson: () => void (ring && terminal.stdout.write('\u0007')),
  });
  if (opts.json)
    return streamSnapshots(status, deps, (s, views) =>
      deps.output.out(
        JSON.stringify(
          views ? { ...s, remote: { hosts: views.map(withLinkLine) } } : s,
        ),
      ),
    );
  if (!terminal.interactive) {
    // Loaded only for the plain text: the live view loads ui/ on its own
    // (a static import of ui/ here broke its keys: j and k did not redraw).
    const { formatStatusText } = await import('../ui/status-text.js');
    const hub = status.hosts ? await import('./status-remote.js') : undefined;
    return streamSnapshots(status, deps, (s, views) => {
      const lines =
        hub && views
          ? hub.formatHubStatus(s, views, now())
          : formatStatusText(s, now());
      for (const line of lines) deps.output.out(line);
      deps.output.out('');
    });
  }
  return runStatusView(options, status);
}

/** The live view on a terminal, its bell rung, until quit or interrupted. */
async function runStatusView(
  options: LiveStatus,
  status: OpenStatus,
): Promise<number> {
  const { opts, deps, ctx, config, terminal, statusDeps } = options;
  const local = createStatusIntents({
    ctx,
    env: deps.env,
    feed: status.feed,
    runEditor: statusDeps.runEditor,
    tmuxSocket: opts.tmuxSocket,
    runTmux: deps.runTmux,
  });
  const { runLiveView } = await import('../ui/live-view.js');
  const interrupted = await runLiveView({
    status,
    intents: status.hosts?.wrapIntents(local, statusDeps.runEditor) ?? local,
    stdin: terminal.stdin,
    stdout: terminal.stdout,
    stderr: terminal.stderr,
    attention: config.attention,
    interrupted: deps.interrupted,
  });
  return interrupted ? 130 : 0;
}
