import { render } from 'ink';
import { App } from './App.js';
import type {
  IntentResult,
  SnapshotSource,
  StatusIntents,
} from '../operations/view-intents.js';

export interface StatusAppOptions {
  source: SnapshotSource;
  intents: StatusIntents;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** Draw on the terminal's alternate screen (restored on exit). */
  alternateScreen?: boolean;
  /** Unmount when aborted (SIGTERM). */
  signal?: AbortSignal;
}

const ENTER_ALT_SCREEN = '\u001b[?1049h\u001b[H';
const LEAVE_ALT_SCREEN = '\u001b[?1049l';

/**
 * Run the status view until the user quits. `macs status` imports this
 * module lazily, so `macs status --json` never loads React or ink.
 */
export async function runStatusApp(
  options: StatusAppOptions,
): Promise<'quit' | 'interrupted'> {
  const { stdout } = options;
  const alt = options.alternateScreen ?? true;
  if (alt) stdout.write(ENTER_ALT_SCREEN);
  let instance: ReturnType<typeof render> | undefined;
  // The editor owns the terminal while it runs: leave the alternate screen,
  // then come back and draw everything again.
  const intents: StatusIntents = {
    ...options.intents,
    async editAnswer(request): Promise<IntentResult> {
      if (alt) stdout.write(LEAVE_ALT_SCREEN);
      try {
        return await options.intents.editAnswer(request);
      } finally {
        if (alt) stdout.write(ENTER_ALT_SCREEN);
        instance?.clear();
      }
    },
  };
  try {
    instance = render(<App source={options.source} intents={intents} />, {
      stdin: options.stdin,
      stdout: options.stdout,
      stderr: options.stderr,
      // Ctrl-C is a key of the view: it cancels an answer being typed, else quits.
      exitOnCtrlC: false,
      patchConsole: false,
      maxFps: 10,
      // Each frame erases the last one and is written whole. ink 6's
      // incremental renderer, which rewrites only the lines that changed,
      // moves the cursor up one line too few when the frame is shorter than
      // the terminal (as this one always is): each redraw landed a line
      // lower, and rows stacked and overwrote each other (issue 25; fixed
      // in ink 7.0.3, which needs Node 22).
      incrementalRendering: false,
    });
    const mounted = instance;
    options.signal?.addEventListener('abort', () => mounted.unmount(), {
      once: true,
    });
    const result = await mounted.waitUntilExit();
    return result === 'interrupted' ? 'interrupted' : 'quit';
  } finally {
    instance?.cleanup();
    if (alt) stdout.write(LEAVE_ALT_SCREEN);
  }
}
