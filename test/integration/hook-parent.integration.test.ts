// A hook that waits for a decision stops waiting when the agent that ran it
// is gone (killed with its pane, crashed): it is re-parented, and a wait of
// minutes for nobody would keep writing into the home after the agent died.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { isProcessAlive } from '../../src/state/process.js';
import { readDecision } from '../../src/state/hook-files.js';
import { MACS_BIN } from '../helpers/macs.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitForHookRequest } from '../helpers/hook-requests.js';
import { waitFor } from '../helpers/wait-for.js';

describe('a waiting hook whose agent is gone', () => {
  let paths: HomePaths;
  let cleanup: () => void;
  beforeEach(() => {
    const made = makeTempHome('macs-hook-parent-');
    cleanup = made.cleanup;
    paths = resolveHomePaths(made.home);
  });
  afterEach(() => cleanup());

  it('stops waiting, and the default stands with the reason', async () => {
    writeFileSync(
      path.join(paths.home, 'macs.config.json'),
      JSON.stringify({
        policy: { ask: ['\\bgit\\s+push\\b'], askTimeoutSec: 600 },
      }),
    );
    // A bridge "runs" (this test's pid holds the agent's lock).
    mkdirSync(paths.state, { recursive: true });
    writeFileSync(path.join(paths.state, 'w1.lock'), `${process.pid}\n`);
    const input = path.join(paths.home, 'input.json');
    writeFileSync(
      input,
      JSON.stringify({
        session_id: 's-1',
        transcript_path: '/tmp/t.jsonl',
        cwd: paths.home,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'git push origin main' },
        tool_use_id: 'toolu_1',
      }),
    );
    // The "agent": a shell that runs the hook and waits.
    const agent = spawn(
      'sh',
      [
        '-c',
        `"${process.execPath}" "${MACS_BIN}" hook PreToolUse < "${input}" > /dev/null 2>&1 & sleep 600`,
      ],
      {
        env: {
          ...process.env,
          MACS_HOME: paths.home,
          MACS_AGENT: 'w1',
          TMUX: '',
          TMUX_PANE: '',
        },
        stdio: 'ignore',
        detached: true,
      },
    );
    try {
      const { request } = await waitForHookRequest(
        paths,
        'w1',
        'the hook asks',
      );
      expect(request?.pid).toBeGreaterThan(0);
      // The agent dies; the hook it ran is left alone.
      process.kill(agent.pid ?? 0, 'SIGKILL');
      await waitFor(() => !isProcessAlive(request?.pid ?? 0), {
        message: 'the orphaned hook ends long before its 600 s',
      });
      const decided = await readDecision(paths, request?.id ?? '');
      expect(decided?.reason).toMatch(/w1 ended before a decision came/);
    } finally {
      try {
        process.kill(-(agent.pid ?? 0), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
});
