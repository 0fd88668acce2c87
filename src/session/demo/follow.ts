/**
 * `macs start --demo --detach`: the demo's events from the log while it
 * runs, until its scripted worker writes what it did (script.ts).
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { readEvents } from '../../events/log.js';
import type { MacsEvent } from '../../events/types.js';
import type { HomePaths } from '../../home/paths.js';
import { DEMO_WAIT_MS } from './config.js';
import type { DemoResult } from './script.js';

const DEMO_POLL_MS = 250;

/** How following a demo ended. */
export type DemoEnd =
  | { kind: 'finished'; result: DemoResult }
  | { kind: 'interrupted' }
  /** Not finished within DEMO_WAIT_MS. */
  | { kind: 'timed-out'; waitedMs: number };

async function readDemoResult(file: string): Promise<DemoResult | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as DemoResult;
  } catch {
    return undefined;
  }
}

/**
 * Follow a demo: `onEvent` gets each event since `since` once, until the
 * scripted worker says it has finished, `interrupted` settles, or
 * DEMO_WAIT_MS pass. The session keeps running.
 */
export async function followDemoRun(
  paths: HomePaths,
  resultFile: string,
  since: Date,
  onEvent: (event: MacsEvent) => void,
  interrupted: Promise<unknown>,
): Promise<DemoEnd> {
  const seen = new Set<string>();
  const show = async () => {
    for (const event of await readEvents(paths, { since })) {
      const key = JSON.stringify(event);
      if (seen.has(key)) continue;
      seen.add(key);
      onEvent(event);
    }
  };
  const started = Date.now();
  let result: DemoResult | undefined;
  let stopped = false;
  void interrupted.then(() => (stopped = true));
  while (Date.now() - started < DEMO_WAIT_MS && !stopped) {
    await show();
    result = await readDemoResult(resultFile);
    if (result) break;
    await delay(DEMO_POLL_MS);
  }
  await show();
  if (stopped) return { kind: 'interrupted' };
  if (!result) return { kind: 'timed-out', waitedMs: DEMO_WAIT_MS };
  return { kind: 'finished', result };
}
