// The first message (the worker protocol) of a program that asked before it
// came. Bug seen trying `macs start` by hand: a Python worker printed a
// request and waited on input(); the bridge then typed the protocol as its
// first message, and the script read that as its answer. Strategy: the
// same worker under a real `macs start`, its input written to a file; the
// protocol must never be typed into it, and the answer given with
// `macs respond` must be the first line it reads.
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findEvents, runMacs } from '../helpers/macs.js';
import { cleanUpSession, testSocket } from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

const ASKS_AT_ONCE = [
  'import os, sys',
  "print('<<CONTROLLER_REQUEST id=q1>>', flush=True)",
  "print('Pick A or B?', flush=True)",
  "print('<<CONTROLLER_REQUEST_END>>', flush=True)",
  'line = sys.stdin.readline()',
  // Whole or not at all: the test reads it as soon as it is there.
  "with open(sys.argv[1] + '.part', 'w') as f: f.write(line)",
  "os.replace(sys.argv[1] + '.part', sys.argv[1])",
  "print('got it', flush=True)",
  'sys.stdin.readline()',
].join('\n');

describe('the first message of a worker that asked first', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-first-'));
    socket = testSocket();
  });

  afterEach(async () => {
    await cleanUpSession(home, socket);
    cleanup();
  });

  it('types no protocol into a program waiting for its answer; the answer is what it reads', async () => {
    const got = path.join(home, 'got.txt');
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        workers: [
          { name: 'asker', command: ['python3', '-c', ASKS_AT_ONCE, got] },
        ],
      }),
    );
    const start = await runMacs(['start', '--detach'], { home, socket });
    expect(start.exitCode, start.stdout + start.stderr).toBe(0);
    const kept = await waitFor(() => findEvents(home, 'agent.prompt-kept')[0], {
      timeout: 60_000,
      message: 'the first message kept for q1',
    });
    expect(kept).toMatchObject({ agent: 'asker', requestId: 'asker-q1' });
    expect(findEvents(home, 'agent.prompted')).toEqual([]);
    expect(existsSync(got)).toBe(false);
    const respond = await runMacs(['respond', 'asker-q1', 'B'], {
      home,
      socket,
    });
    expect(respond.exitCode, respond.stderr).toBe(0);
    await waitFor(() => existsSync(got), {
      timeout: 60_000,
      message: 'the answer read by the worker',
    });
    expect(readFileSync(got, 'utf8')).toBe('B\n');
    // Noted as done with, so a bridge started again does not send it.
    const session = JSON.parse(
      readFileSync(path.join(home, '.macs', 'session.json'), 'utf8'),
    ) as { agents: { name: string; prompt?: { promptedAt?: string } }[] };
    expect(
      session.agents.find((a) => a.name === 'asker')?.prompt?.promptedAt,
    ).toEqual(expect.any(String));

    // A new session: the new program asks q1 again, word for word. Before,
    // the saved fingerprints of the first session's screen hid the block
    // (no event at all) and the protocol was typed in as its answer. Now it
    // is seen, a repeat of a finished id (SPEC §2), and a person is called.
    const stop = await runMacs(['stop'], { home, socket });
    expect(stop.exitCode, stop.stderr).toBe(0);
    const again = await runMacs(['start', '--detach'], { home, socket });
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    await waitFor(() => findEvents(home, 'agent.prompt-kept')[1], {
      timeout: 60_000,
      message: 'the first message kept in the second session',
    });
    expect(
      findEvents(home, 'request.duplicate').map((e) => e.requestId),
    ).toEqual(['asker-q1']);
    expect(findEvents(home, 'agent.prompted')).toEqual([]);
    expect(readFileSync(got, 'utf8')).toBe('B\n');
  });
});
