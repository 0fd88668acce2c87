/**
 * The live status view's intents on this machine, done with files and
 * tmux: answer (`r`, `e`), dismiss (`d`), pause or resume (`p`), jump to
 * the pane (`a`). Each says what happened in one line for the view.
 */
import { runEditorSync, type RunEditor } from '../backends/editor.js';
import { errorMessage } from '../errors.js';
import { createEventLog, type EventSink } from '../events/log.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { readSessionRecord } from '../session/record.js';
import { writeOutboxAnswer } from '../state/outbox.js';
import type { SnapshotFeed } from '../state/snapshot-feed.js';
import { createTmuxClient, type TmuxClient } from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';
import { describeAnswerResult, editAnswerInEditor } from './answer-editor.js';
import { describeDismissal, dismissRequests } from './dismiss-requests.js';
import { jumpToPane } from './jump-to-pane.js';
import { pauseDelivery } from './pause-delivery.js';
import type { IntentResult, StatusIntents } from './view-intents.js';

/** The home the view works in, and the tmux client its command opened. */
export interface ViewHome {
  paths: HomePaths;
  log: Logger;
  tmux: TmuxClient;
}

/** The intents of the live view, done with files and tmux. */
export function createStatusIntents(options: {
  ctx: ViewHome;
  env: NodeJS.ProcessEnv;
  feed: Pick<SnapshotFeed, 'refresh'>;
  /** How `$EDITOR` runs (default: synchronously, on this terminal). */
  runEditor?: RunEditor | undefined;
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
  // The view reads the home again after each intent (after a failed
  // dismiss or pause too; an answer that throws is not read again).
  const refreshed = async <T>(result: Promise<T>): Promise<T> => {
    try {
      return await result;
    } finally {
      await feed.refresh();
    }
  };
  const thenRefresh = async <T>(result: Promise<T>): Promise<T> => {
    const value = await result;
    await feed.refresh();
    return value;
  };
  return {
    answer: async (requestId, text) =>
      thenRefresh(
        writeOutboxAnswer(ctx.paths, requestId, text).then((written) =>
          describeAnswerResult(requestId, written),
        ),
      ),
    editAnswer: (request) =>
      thenRefresh(
        editAnswerInEditor({
          paths: ctx.paths,
          request,
          env: options.env,
          runEditor: options.runEditor ?? runEditorSync,
        }),
      ),
    dismiss: (requestId) => refreshed(dismissFromView(ctx, requestId)),
    setPaused: (agent, paused) =>
      refreshed(pauseFromView(ctx.paths, events, agent, paused)),
    jumpToPane: async (agent, pane) =>
      jumpToPane(await sessionTmux(), agent, pane, options.env),
  };
}

/** The view's `d`: one request dismissed, said in one line. */
async function dismissFromView(
  ctx: ViewHome,
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
  paths: HomePaths,
  events: EventSink,
  agent: string,
  paused: boolean,
): Promise<IntentResult> {
  try {
    await pauseDelivery(paths, events, agent, paused, 'macs status');
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
