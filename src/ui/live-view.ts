/**
 * The live status view on a terminal: the app drawn on the home's snapshots
 * (with a hub's hosts), its bell rung for new `attention`, until the person
 * quits or the process is interrupted. React and ink load only here.
 */
import type { MacsConfig } from '../config/schema.js';
import type { LiveStatus } from '../operations/live-status.js';
import type { Snapshot } from '../state/snapshot-schema.js';
import type { StatusIntents } from '../operations/view-intents.js';
import { createAttentionBell } from './attention-bell.js';

export interface LiveViewOptions {
  /**
   * What the view draws; its feed is started here, its snapshots checked
   * for the bell, and all closed when the view ends.
   */
  status: Pick<LiveStatus, 'feed' | 'source' | 'close'>;
  intents: StatusIntents;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  attention: MacsConfig['attention'];
  /** Settles with the signal that interrupts the process. */
  interrupted: Promise<'SIGINT' | 'SIGTERM'>;
}

/**
 * Run the view until quit or interrupted; true when it ended by an
 * interrupt (Ctrl-C outside the view's keys, or SIGINT).
 */
export async function runLiveView(options: LiveViewOptions): Promise<boolean> {
  const { status, stdout } = options;
  const { feed } = status;
  const bell = createAttentionBell({
    config: options.attention,
    ringBell: () => void stdout.write('\u0007'),
    since: new Date(),
  });
  const notify = (snapshot: Snapshot) => bell.check(snapshot);
  notify(await feed.start());
  const unsubscribe = feed.subscribe(notify);
  const stop = new AbortController();
  let signal: 'SIGINT' | 'SIGTERM' | undefined;
  void options.interrupted.then((received) => {
    signal = received;
    stop.abort();
  });
  let ended: 'quit' | 'interrupted';
  try {
    // Loaded only here: `--json` and the plain-text forms never load React.
    const runStatusApp = await loadStatusApp();
    ended = await runStatusApp({
      source: status.source,
      intents: options.intents,
      stdin: options.stdin,
      stdout,
      stderr: options.stderr,
      signal: stop.signal,
    });
  } finally {
    unsubscribe();
    await status.close();
  }
  return ended === 'interrupted' || signal === 'SIGINT';
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
  return (await import('./run.js')).runStatusApp;
}
