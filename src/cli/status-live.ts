// The live view of `macs status` and its --watch streams (status.ts loads
// this module only for them).
import { errorMessage } from '../errors.js';
import { createEventLog, type EventSink } from '../events/log.js';
import type { MacsConfig } from '../config/schema.js';
import type { HostView } from '../remote/remote-fleet.js';
import { writeOutboxAnswer } from '../state/outbox.js';
import type { Snapshot } from '../state/snapshot-schema.js';
import { createSnapshotReader } from '../state/snapshot.js';
import {
  createSnapshotFeed,
  type SnapshotFeed,
} from '../state/snapshot-feed.js';
import type { IntentResult, StatusIntents } from '../ui/intents.js';
import { runEditorSync, type RunEditor } from '../backends/editor.js';
import { editAnswerInEditor } from './answer-editor.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import { describeAnswerResult } from './status-answer.js';
import { createAttentionBell } from './status-attention.js';
import {
  describeDismissal,
  dismissRequests,
} from '../operations/dismiss-requests.js';
import { pauseDelivery } from '../operations/pause-delivery.js';
import type { StatusDeps, StatusOptions, StatusTerminal } from './types.js';
import { formatStatusText } from '../ui/status-text.js';
import type { StatusHosts } from './status-hosts.js';
import { jumpToPane } from './status-tmux.js';
import { probeTmuxServer } from '../tmux/probe.js';
import { readSessionRecord } from '../session/record.js';
import { createTmuxClient, type TmuxClient } from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';

/** The intents of the live view, done with files and tmux. */
export function createStatusIntents(options: {
  ctx: CommandContext;
  env: NodeJS.ProcessEnv;
  feed: Pick<SnapshotFeed, 'refresh'>;
  runEditor: RunEditor;
  /** `--tmux-socket`; else the session's server, read at each jump. */
  tmuxSocket?: string | undefined;
  runTmux: RunTmux;
}): StatusIntents {
  const { ctx, feed } = options;
  const events = createEventLog(ctx.paths);
  // The session's server (`.macs/session.json`), like every session
  // command; read when asked, as the session may have started (or started
  // again on another server) since the view did.
  const sessionTmux = async (): Promise<TmuxClient> => {
    if (options.tmuxSocket) return ctx.tmux;
    const socket = (await readSessionRecord(ctx.paths))?.socket;
    return socket ? createTmuxClient(socket, options.runTmux) : ctx.tmux;
  };
  return {
    async answer(requestId, text) {
      const result = describeAnswerResult(
        requestId,
        await writeOutboxAnswer(ctx.paths, requestId, text),
      );
      await feed.refresh();
      return result;
    },
    async editAnswer(request) {
      const result = await editAnswerInEditor({
        paths: ctx.paths,
        request,
        env: options.env,
        runEditor: options.runEditor,
      });
      await feed.refresh();
      return result;
    },
    async dismiss(requestId) {
      try {
        return await dismissFromView(ctx, requestId);
      } finally {
        await feed.refresh();
      }
    },
    async setPaused(agent, paused) {
      try {
        return await pauseFromView(ctx, events, agent, paused);
      } finally {
        await feed.refresh();
      }
    },
    jumpToPane: async (agent, pane) =>
      jumpToPane(await sessionTmux(), agent, pane, options.env),
  };
}

/** The view's `d`: one request dismissed, said in one line. */
async function dismissFromView(
  ctx: CommandContext,
  requestId: string,
): Promise<IntentResult> {
  try {
    const [outcome] = await dismissRequests(
      ctx.paths,
      [requestId],
      'dismissed from macs status',
      ctx.log,
    );
    if (!outcome) return { ok: false, message: 'nothing dismissed' };
    return {
      ok: outcome.result === 'dismissed' || outcome.result === 'handed-over',
      message: describeDismissal(outcome),
    };
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
}

/** The view's `p`: delivery to an agent paused or resumed. */
async function pauseFromView(
  ctx: CommandContext,
  events: EventSink,
  agent: string,
  paused: boolean,
): Promise<IntentResult> {
  try {
    await pauseDelivery(ctx.paths, events, agent, paused, 'macs status');
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
  return {
    ok: true,
    message: paused
      ? `delivery to ${agent} paused: answers wait until you press p again`
      : `delivery to ${agent} resumed`,
  };
}

/**
 * Print one snapshot per change, until interrupted (no terminal, or --json
 * --watch); at a hub, with each host as last read, on its changes too.
 */
async function streamSnapshots(
  feed: SnapshotFeed,
  deps: CliDeps,
  hosts: StatusHosts | undefined,
  print: (snapshot: Snapshot, hosts: HostView[] | undefined) => void,
): Promise<number> {
  const first = await feed.start();
  await hosts?.firstRead;
  const emit = () => print(feed.current() ?? first, hosts?.views());
  emit();
  const unsubscribe = (hosts?.source ?? feed).subscribe(emit);
  try {
    const signal = await deps.interrupted;
    return signal === 'SIGINT' ? 130 : 0;
  } finally {
    unsubscribe();
    feed.stop();
    await hosts?.close();
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
  const { opts, deps, config, terminal } = options;
  const now = () => Date.now();
  const feed = createLiveFeed(options);
  // At a hub, each host's agents, requests and link join the view and the
  // --watch streams (as `remote` in JSON and lines after this machine's, as
  // `macs status` prints them once).
  const bell = { ringForHosts: (): void => undefined };
  const hosts =
    Object.keys(config.hosts).length > 0
      ? (await import('./status-hosts.js')).createStatusHosts({
          ctx: options.ctx,
          config,
          deps,
          feed,
          onNeedsPerson: () => bell.ringForHosts(),
        })
      : undefined;
  if (opts.json)
    return streamSnapshots(feed, deps, hosts, (s, views) =>
      deps.output.out(
        JSON.stringify(views ? { ...s, remote: { hosts: views } } : s),
      ),
    );
  if (!terminal.interactive) {
    const { formatHostLines } = await import('./status-remote.js');
    return streamSnapshots(feed, deps, hosts, (s, views) => {
      for (const line of formatStatusText(s, now())) deps.output.out(line);
      for (const line of views ? formatHostLines(views) : [])
        deps.output.out(line);
      deps.output.out('');
    });
  }
  // A host's request that waits for a person rings here too: the host's own
  // bell rings in a view there, which nobody at the hub sees.
  if (config.attention.bell)
    bell.ringForHosts = () => void terminal.stdout.write('\u0007');
  return runStatusView(options, feed, hosts);
}

/** The home's snapshots, read on each change until stopped. */
function createLiveFeed(options: LiveStatus): SnapshotFeed {
  const { opts, deps, ctx, config, terminal } = options;
  return createSnapshotFeed({
    paths: ctx.paths,
    reader: createSnapshotReader(ctx.paths, {
      prices: config.prices,
      serverUp: probeTmuxServer(deps.runTmux),
    }),
    onError: (error) => ctx.log.warn({ err: error }, 'status read failed'),
    // Without the view's terminal input, nothing else keeps `--watch` running.
    keepAlive: opts.json === true || !terminal.interactive,
  });
}

/** The live view on a terminal, its bell rung, until quit or interrupted. */
async function runStatusView(
  options: LiveStatus,
  feed: SnapshotFeed,
  hosts: StatusHosts | undefined,
): Promise<number> {
  const { opts, deps, ctx, config, terminal, statusDeps } = options;
  const bell = createAttentionBell({
    config: config.attention,
    ringBell: () => void terminal.stdout.write('\u0007'),
    since: new Date(),
  });
  const notify = (snapshot: Snapshot) => bell.check(snapshot);
  const runEditor = statusDeps.runEditor ?? runEditorSync;
  const local = createStatusIntents({
    ctx,
    env: deps.env,
    feed,
    runEditor,
    tmuxSocket: opts.tmuxSocket,
    runTmux: deps.runTmux,
  });
  const intents = hosts ? hosts.wrapIntents(local, runEditor) : local;
  notify(await feed.start());
  const unsubscribe = feed.subscribe(notify);
  const stop = new AbortController();
  let signal: 'SIGINT' | 'SIGTERM' | undefined;
  void deps.interrupted.then((received) => {
    signal = received;
    stop.abort();
  });
  let ended: 'quit' | 'interrupted';
  try {
    // Loaded only here: `--json` and the plain-text forms never load React.
    const runStatusApp = await loadStatusApp();
    ended = await runStatusApp({
      source: hosts?.source ?? feed,
      intents,
      stdin: terminal.stdin,
      stdout: terminal.stdout,
      stderr: terminal.stderr,
      signal: stop.signal,
    });
  } finally {
    unsubscribe();
    feed.stop();
    await hosts?.close();
  }
  return ended === 'interrupted' || signal === 'SIGINT' ? 130 : 0;
}

/** The view's React app, loaded as a person's live view must draw. */
async function loadStatusApp() {
  // React's development build re-renders many times slower (a 1 s clock
  // tick cost ~5% CPU with it); it reads NODE_ENV when first loaded.
  process.env.NODE_ENV ??= 'production';
  // ink renders only its last frame when it thinks it runs in CI (a `CI`
  // variable): this is a person's live view on a terminal, so it must draw.
  // is-in-ci reads the variable when ink is first loaded.
  for (const name of ['CI', 'CONTINUOUS_INTEGRATION'])
    if (process.env[name] !== undefined) process.env[name] = 'false';
  return (await import('../ui/run.js')).runStatusApp;
}
