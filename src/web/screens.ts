/**
 * The live screens of `macs web`: an agent's screen is read (through the
 * code of the MCP `read_screen` tool) when a page starts watching it and
 * again each time its pane prints, which the bridge's pane log tells
 * (`fs.watch` on `.macs/panes/`), at most every SCREEN_MIN_INTERVAL_MS per
 * agent; a screen is sent on only when it changed. An idle fleet costs
 * nothing: no pane prints, no log changes, nothing is read. A pane no
 * bridge logs is read again every SCREEN_BACKSTOP_MS while watched.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { ScreenView } from './messages.js';

/** Least time between two reads of one agent's screen. */
export const SCREEN_MIN_INTERVAL_MS = 200;
/** How often a watched pane without a pane log is read. */
export const SCREEN_BACKSTOP_MS = 10_000;
/** Screens read at once. */
const SCREEN_READS_AT_ONCE = 4;

export interface ScreenHub {
  /** Start watching an agent's screen (its current screen is sent soon). */
  watch(agent: string): void;
  unwatch(agent: string): void;
  /** Read the watched screens again (after the fleet changed). */
  refreshAll(): void;
  /** The last screen sent of an agent. */
  latest(agent: string): ScreenView | undefined;
  stop(): void;
}

export interface ScreenHubOptions {
  /** `.macs/panes/`: the bridges' pane logs, `<agent>.log`. */
  panesDir: string;
  read: (agent: string) => Promise<ScreenView>;
  /** A screen that changed. */
  onScreen: (screen: ScreenView) => void;
  minIntervalMs?: number;
  backstopMs?: number;
}

/** A hub of watched screens; see the module comment. */
export function createScreenHub(options: ScreenHubOptions): ScreenHub {
  const minIntervalMs = options.minIntervalMs ?? SCREEN_MIN_INTERVAL_MS;
  const watchers = new Map<string, number>();
  const sent = new Map<string, { view: ScreenView; key: string }>();
  const lastRead = new Map<string, number>();
  const timers = new Map<string, NodeJS.Timeout>();
  const queue: string[] = [];
  let reading = 0;
  let dirWatcher: FSWatcher | undefined;
  let stopped = false;

  function attach(): void {
    if (dirWatcher || stopped) return;
    try {
      dirWatcher = watch(
        options.panesDir,
        { persistent: false },
        (_event, file) => {
          const name = typeof file === 'string' ? file : '';
          if (name.endsWith('.log')) schedule(name.slice(0, -'.log'.length));
        },
      );
      dirWatcher.on('error', () => {
        dirWatcher?.close();
        dirWatcher = undefined;
      });
    } catch {
      // no pane logs yet: attached at the backstop
    }
  }

  const backstop = setInterval(() => {
    attach();
    for (const agent of watchers.keys())
      if (!existsSync(path.join(options.panesDir, `${agent}.log`)))
        schedule(agent);
  }, options.backstopMs ?? SCREEN_BACKSTOP_MS);
  backstop.unref();

  function schedule(agent: string): void {
    if (stopped || !watchers.has(agent) || timers.has(agent)) return;
    const wait = Math.max(
      0,
      (lastRead.get(agent) ?? 0) + minIntervalMs - Date.now(),
    );
    const timer = setTimeout(() => {
      timers.delete(agent);
      if (!queue.includes(agent)) queue.push(agent);
      pump();
    }, wait);
    timer.unref();
    timers.set(agent, timer);
  }

  function pump(): void {
    while (reading < SCREEN_READS_AT_ONCE && queue.length > 0 && !stopped) {
      const agent = queue.shift() as string;
      reading += 1;
      lastRead.set(agent, Date.now());
      void readOne(agent).finally(() => {
        reading -= 1;
        pump();
      });
    }
  }

  async function readOne(agent: string): Promise<void> {
    let view: ScreenView;
    try {
      view = await options.read(agent);
    } catch (error) {
      view = {
        agent,
        error: error instanceof Error ? error.message : String(error),
      };
    }
    if (stopped || !watchers.has(agent)) return;
    const key = JSON.stringify(view);
    if (sent.get(agent)?.key === key) return;
    sent.set(agent, { view, key });
    options.onScreen(view);
  }

  attach();
  return {
    watch(agent) {
      watchers.set(agent, (watchers.get(agent) ?? 0) + 1);
      schedule(agent);
    },
    unwatch(agent) {
      const left = (watchers.get(agent) ?? 0) - 1;
      if (left > 0) return void watchers.set(agent, left);
      watchers.delete(agent);
      sent.delete(agent);
      clearTimeout(timers.get(agent));
      timers.delete(agent);
    },
    refreshAll() {
      for (const agent of watchers.keys()) schedule(agent);
    },
    latest: (agent) => sent.get(agent)?.view,
    stop() {
      stopped = true;
      clearInterval(backstop);
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      dirWatcher?.close();
    },
  };
}
