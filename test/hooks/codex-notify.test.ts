// `macs hook notify` with Codex's records: only a turn of the thread the
// person talks to marks the agent idle (issue 17, item 8). The folder
// layout and the first line of a rollout are as Codex 0.169.0 writes them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import { readCodexThreadInfo } from '../../src/hooks/codex-rollout.js';
import { runHook, type HookRunDeps } from '../../src/hooks/runner.js';
import { readObservation } from '../../src/state/hook-files.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';

const MAIN = '01a21299-927a-71c2-b28f-cc3c8845f57f';
const TITLE = '01a21299-9483-7fe1-a102-5260c1e79e41';

function writeRollout(codexHome: string, thread: string, source?: string) {
  const day = path.join(codexHome, 'sessions', '2026', '11', '25');
  mkdirSync(day, { recursive: true });
  const meta = {
    timestamp: '2026-11-25T12:06:24.427Z',
    type: 'session_meta',
    payload: {
      id: thread,
      cwd: '/work/repo',
      originator: 'codex-tui',
      cli_version: '0.169.0',
      ...(source ? { thread_source: source } : {}),
    },
  };
  writeFileSync(
    path.join(day, `rollout-2026-11-25T12-06-24-${thread}.jsonl`),
    `${JSON.stringify(meta)}\n{"type":"turn_context"}\n`,
  );
}

const notify = (thread: string) =>
  JSON.stringify({
    type: 'agent-turn-complete',
    'thread-id': thread,
    'turn-id': `${thread}-turn`,
    cwd: '/work/repo',
    client: 'codex-tui',
    'input-messages': ['do the task'],
    'last-assistant-message': 'done',
  });

describe('macs hook notify and Codex threads', () => {
  let paths: HomePaths;
  let codexHome: string;

  beforeEach(() => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-cx-')));
    codexHome = path.join(paths.home, 'codex-home');
    mkdirSync(codexHome);
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  const deps = (env: NodeJS.ProcessEnv): HookRunDeps => ({
    env: { MACS_HOME: paths.home, CODEX_HOME: codexHome, ...env },
    cwd: '/',
    readStdin: () => Promise.resolve(''),
    stdinIsTTY: false,
    write: () => undefined,
  });
  const run = (thread: string) =>
    runHook(
      { event: 'notify', payload: notify(thread), agent: 'cx' },
      deps({}),
    );

  it('a title thread (no rollout) does not mark the agent idle', async () => {
    writeRollout(codexHome, MAIN, 'user');
    await run(TITLE);
    expect(await readObservation(paths, 'cx')).toBeUndefined();
    const events = await readEvents(paths, { agent: 'cx' });
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ session: TITLE, auxiliary: true }),
    ]);
  });

  it("the person's thread marks the agent idle", async () => {
    writeRollout(codexHome, MAIN, 'user');
    await run(MAIN);
    expect(await readObservation(paths, 'cx')).toMatchObject({
      event: 'notify',
      state: 'idle',
    });
  });

  it('a recorded thread of another source is auxiliary', async () => {
    writeRollout(codexHome, MAIN, 'user');
    writeRollout(codexHome, TITLE, 'subagent');
    expect(await readCodexThreadInfo(codexHome, TITLE)).toEqual({
      recorded: true,
      source: 'subagent',
    });
    await run(TITLE);
    expect(await readObservation(paths, 'cx')).toBeUndefined();
  });

  it('without session records every thread counts (nothing to tell them apart)', async () => {
    expect(await readCodexThreadInfo(codexHome, TITLE)).toBeUndefined();
    await run(TITLE);
    expect(await readObservation(paths, 'cx')).toMatchObject({
      state: 'idle',
    });
  });
});
