// Issue 32, unattended runs: `macs start --non-interactive` with scripted
// workers in worktrees of their own and nobody answering. Each worker
// commits, asks a question, then says done. Both change the same line, so
// the first done merges cleanly into the branch they started from and the
// second conflicts: it is reported (`merge.conflict`) and waits in the
// inbox for a person. Every answer is recorded as decided by the rule
// `non-interactive`. Real tmux on a private server, real git; waits are on
// conditions.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findEvents, runMacs, waitForEvents } from '../helpers/macs.js';
import { cleanUpSession, testSocket } from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

describe('unattended runs (issue 32)', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-unattended-'));
    socket = testSocket();
  });
  afterEach(async () => {
    await cleanUpSession(home, socket);
    cleanup();
  });

  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: home, encoding: 'utf8' }).trim();

  it('a session of scripted workers runs from start to merge with nobody answering', async () => {
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 't');
    git('config', 'user.email', 't@example.com');
    writeFileSync(path.join(home, 'a.txt'), 'one\n');
    writeFileSync(path.join(home, '.gitignore'), '.macs/\n*.sh\n');
    git('add', '.');
    git('commit', '-qm', 'init');
    // A worker: commit its own a.txt, ask, then say done; print each answer.
    const script = path.join(home, 'worker.sh');
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        'echo "$MACS_AGENT" > a.txt; git commit -qam "work of $MACS_AGENT"',
        "printf '<<CONTROLLER_REQUEST id=q1 type=question>>\\nTabs or spaces?\\n<<CONTROLLER_REQUEST_END>>\\n'",
        'read answer; echo "answer one: $answer"',
        "printf '<<CONTROLLER_REQUEST id=d1 type=done>>\\nfinished\\n<<CONTROLLER_REQUEST_END>>\\n'",
        'read answer; echo "answer two: $answer"',
        'exec sleep 600',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        workers: ['w1', 'w2'].map((name) => ({
          name,
          preset: 'shell',
          command: script,
          worktree: true,
        })),
      }),
    );
    const start = await runMacs(['start', '--non-interactive', '--detach'], {
      home,
      socket,
    });
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);

    const merged = await waitForEvents(home, 'merge.done', {
      message: 'a merge',
    });
    const conflict = await waitForEvents(home, 'merge.conflict', {
      message: 'a conflict',
    });
    expect(merged[0]?.data).toMatchObject({ merge: 'merged', base: 'main' });
    const winner = merged[0]?.agent;
    const loser = winner === 'w1' ? 'w2' : 'w1';
    expect(conflict[0]).toMatchObject({
      agent: loser,
      data: { branch: `macs/${loser}`, base: 'main', files: ['a.txt'] },
    });
    // The winner's work is on main; the loser's conflict waits for a person.
    expect(git('show', 'main:a.txt')).toBe(winner);
    expect(git('status', '--porcelain', '--untracked-files=no')).toBe('');
    await waitFor(() =>
      existsSync(path.join(home, 'inbox', `${loser}-d1.txt`)),
    );
    const attention = await waitForEvents(home, 'attention', {
      requestId: `${loser}-d1`,
    });
    expect(attention[0]?.data).toMatchObject({ reason: 'merge-conflict' });
    // Every other request was answered at once, decided by the rule.
    await waitForEvents(home, 'request.answered', { count: 3 });
    const answered = findEvents(home, 'request.answered');
    expect(answered.map((e) => e.requestId).sort()).toEqual(
      [`${winner}-d1`, 'w1-q1', 'w2-q1'].sort(),
    );
    for (const e of answered)
      expect(e.data).toMatchObject({
        source: 'rule:non-interactive',
        decidedBy: 'rule',
        via: 'non-interactive',
      });
  });
});
