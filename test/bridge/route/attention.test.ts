import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runExecCommand } from '../../../src/backends/exec.js';
import { createAttention } from '../../../src/bridge/route/attention.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { createEventLog, readEvents } from '../../../src/events/log.js';
import { createSilentLogger } from '../../../src/log/logger.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { makeTempHome } from '../../helpers/tmux-server.js';

// Calling a person (issue 12, scope 4): once per request, across bridges
// and restarts; once per state change to approval, error or dead; the
// notify command gets the call as JSON on stdin, and one that hangs is
// ended at its timeout without holding anything up for good.
describe('attention (calling a person)', () => {
  let home: string;
  let cleanup: () => void;
  let paths: HomePaths;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-attention-'));
    paths = resolveHomePaths(home);
  });
  afterEach(() => cleanup());

  /** A notify command that appends what it reads to a file. */
  function notifyScript(extra = ''): { argv: string[]; out: string } {
    const out = path.join(home, 'notified.jsonl');
    const script = path.join(home, 'notify.mjs');
    writeFileSync(
      script,
      `import { appendFileSync, readFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(out)}, readFileSync(0, 'utf8'));
${extra}`,
    );
    return { argv: [process.execPath, script], out };
  }

  function attention(attentionConfig: Record<string, unknown> = {}) {
    const config = ConfigSchema.parse({ attention: attentionConfig });
    return createAttention({
      paths,
      config: config.attention,
      events: createEventLog(paths),
      log: createSilentLogger(),
      runExec: runExecCommand,
    });
  }

  const notified = (file: string) =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];

  it('calls once per request, even from a second bridge, and runs the notify command with the call on stdin', async () => {
    const { argv, out } = notifyScript();
    const first = attention({ notify: argv });
    const call = {
      agent: 'worker-1',
      requestId: 'worker-1-q1',
      reason: 'waiting-for-person',
      message: 'worker-1 waits for your answer (question): Ship it?',
    };
    await first.request(call);
    await first.request(call);
    await attention({ notify: argv }).request(call);
    const events = await readEvents(paths, { type: 'attention' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      agent: 'worker-1',
      requestId: 'worker-1-q1',
      data: {
        reason: 'waiting-for-person',
        bell: true,
        notify: { ok: true, exitCode: 0 },
      },
    });
    expect(notified(out)).toEqual([
      expect.objectContaining({
        type: 'attention',
        home: paths.home,
        agent: 'worker-1',
        requestId: 'worker-1-q1',
        reason: 'waiting-for-person',
        message: call.message,
      }),
    ]);
  });

  it('calls for an agent that turns approval, error or dead, once per change, and not for other states', async () => {
    const a = attention();
    const change = (to: string, ts: string) =>
      a.observe({
        ts,
        agent: 'worker-2',
        type: 'state.changed',
        data: { from: 'working', to, pane: '%4', exitCode: 3 },
      });
    change('working', '2025-03-01T12:00:00.000Z');
    change('idle', '2025-03-01T12:00:01.000Z');
    change('approval', '2025-03-01T12:00:02.000Z');
    change('dead', '2025-03-01T12:00:03.000Z');
    await a.flush();
    const events = await readEvents(paths, { type: 'attention' });
    expect(
      events.map((e) => [e.agent, e.data?.reason, e.data?.message]),
    ).toEqual([
      ['worker-2', 'approval', 'worker-2 waits on a permission prompt'],
      ['worker-2', 'dead', 'worker-2 ended (exit status 3)'],
    ]);
  });

  it('calls about a request asked again under a finished one, once per id, and not about one still open', async () => {
    // Regression (issue 25, point 7): a worker that printed a dismissed
    // request's block again got nothing and nobody was told. Strategy: the
    // duplicate event says `unanswered`; the person is called once per id.
    const a = attention();
    const duplicate = (requestId: string, data: Record<string, unknown>) =>
      a.observe({
        ts: '2025-03-01T12:00:00.000Z',
        agent: 'worker-1',
        type: 'request.duplicate',
        requestId,
        data,
      });
    const unanswered = {
      reason: 'id',
      workerId: 'q-17',
      unanswered: true,
      earlier: 'worker-1-q-17',
      stage: 'dismissed',
      message: 'worker-1 asked again under id q-17 …',
      pane: '%0',
    };
    duplicate('worker-1-q-17', unanswered);
    duplicate('worker-1-q-17', unanswered);
    duplicate('worker-1-q-18', { reason: 'id', workerId: 'q-18' });
    await a.flush();
    await attention().flush();
    const events = await readEvents(paths, { type: 'attention' });
    expect(events).toEqual([
      expect.objectContaining({
        agent: 'worker-1',
        requestId: 'worker-1-q-17',
        data: expect.objectContaining({
          reason: 'asked-again',
          message: 'worker-1 asked again under id q-17 …',
          duplicate: 'id',
          earlier: 'worker-1-q-17',
        }),
      }),
    ]);
  });

  it('ends a notify command that hangs at its timeout, and says so', async () => {
    const { argv } = notifyScript('setInterval(() => {}, 1000);');
    const a = attention({ notify: argv, notifyTimeoutSec: 1 });
    await a.request({
      agent: 'worker-1',
      requestId: 'worker-1-q2',
      reason: 'waiting-for-person',
      message: 'm',
    });
    const [event] = await readEvents(paths, { type: 'attention' });
    expect(event?.data?.notify).toMatchObject({ ok: false, timedOut: true });
  });
});
