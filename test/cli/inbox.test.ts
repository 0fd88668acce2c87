import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInbox } from '../../src/cli/inbox.js';
import type { CliDeps } from '../../src/cli/options.js';
import { createMemoryOutput } from '../../src/cli/output.js';
import type { RunTmux } from '../../src/tmux/run.js';
import { createHomeFixture, makeRecord } from '../state/home-fixture.js';

function makeDeps(home: string) {
  const output = createMemoryOutput();
  const runTmux: RunTmux = () =>
    Promise.resolve({ exitCode: 1, stdout: '', stderr: 'no server running' });
  const deps: CliDeps = {
    output,
    env: {},
    cwd: home,
    runTmux,
    readStdin: () => Promise.resolve(''),
    stdinIsTTY: false,
    interrupted: new Promise(() => undefined),
  };
  return { deps, output };
}

// Issue 25, point 5: a request refused for its size was listed by `macs
// inbox` but missing from `macs inbox --json`, so a script watching the
// inbox never learned that a worker waits for nothing. Strategy: a home
// with one open request and the events of a running session (a refusal of
// this session, one of an earlier session, a block restarted, which is no
// refusal); --json keeps its array of requests and ends it with the
// refusal, `stage: "refused"`, no id.
describe('macs inbox --json', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  it('lists the refused blocks of the session after the open requests', async () => {
    await fx.writeState('worker-1', (s) => {
      s.requests['worker-1-q-17'] = makeRecord();
    });
    const start = new Date(Date.now() - 60_000).toISOString();
    const refusedAt = new Date(Date.now() - 30_000).toISOString();
    mkdirSync(path.dirname(fx.paths.sessionFile), { recursive: true });
    writeFileSync(
      fx.paths.sessionFile,
      JSON.stringify({
        version: 1,
        id: 's-1',
        home: fx.home,
        socket: 'macs-test',
        session: 'macs',
        createdAt: start,
        backend: 'file',
        agents: [],
      }),
    );
    const malformed = (ts: string, data: Record<string, unknown>) =>
      JSON.stringify({
        ts,
        agent: 'worker-1',
        type: 'request.malformed',
        data,
      });
    fx.writeEvents('worker-1', [
      malformed(new Date(Date.now() - 3_600_000).toISOString(), {
        reason: 'max-bytes',
        refused: true,
        firstLine: '<<CONTROLLER_REQUEST id=old>>',
      }),
      malformed(refusedAt, {
        reason: 'max-lines',
        lines: 500,
        bytes: 3890,
        firstLine: '<<CONTROLLER_REQUEST id=big>>',
        refused: true,
        message: "worker-1's request was refused: …",
      }),
      malformed(refusedAt, {
        reason: 'restarted',
        lines: 2,
        bytes: 9,
        firstLine: '<<CONTROLLER_REQUEST id=again>>',
      }),
    ]);
    const { deps, output } = makeDeps(fx.home);
    expect(await runInbox({ home: fx.home, json: true }, deps)).toBe(0);
    const listed = JSON.parse(output.stdout.join('\n')) as Record<
      string,
      unknown
    >[];
    expect(listed).toEqual([
      expect.objectContaining({ id: 'worker-1-q-17', stage: 'routed' }),
      {
        id: null,
        agent: 'worker-1',
        stage: 'refused',
        reason: 'max-lines',
        detectedAt: refusedAt,
        firstLine: '<<CONTROLLER_REQUEST id=big>>',
        lines: 500,
        bytes: 3890,
        message: "worker-1's request was refused: …",
      },
    ]);

    // --agent applies to them too.
    const other = makeDeps(fx.home);
    await runInbox(
      { home: fx.home, json: true, agent: 'worker-2' },
      other.deps,
    );
    expect(JSON.parse(other.output.stdout.join('\n'))).toEqual([]);
  });
});
