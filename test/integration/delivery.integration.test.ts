import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  findEvents,
  readRecord,
  REQ,
  runMacs,
  waitForEvents,
  type Step,
} from '../helpers/macs.js';
import { type TestTmuxServer } from '../helpers/tmux-server.js';
import { useTmuxHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

describe('safe delivery, on a real tmux', () => {
  const harness = useTmuxHarness();
  let server: TestTmuxServer;
  let home: string;
  beforeEach(() => ({ server, home } = harness));

  const file = (name: string) => path.join(home, name);

  const startWorker = (script: Step[], extra: string[] = []) =>
    harness.startWorker(script, { extra });

  const bridge = (pane: string) =>
    harness.startBridge(['--worker-pane', pane, '--agent', 'worker-1']);

  const events = (type: string, requestId?: string) =>
    findEvents(home, type, requestId);

  const waitForEvent = (type: string, requestId?: string) =>
    waitForEvents(home, type, { requestId, timeout: 20_000 });

  async function detect(id: string): Promise<void> {
    await waitFor(() => existsSync(path.join(home, 'inbox', `${id}.txt`)), {
      timeout: 15_000,
      message: `request ${id} detected`,
    });
  }

  const respond = (id: string, text: string) => harness.respond(id, text);

  /** The archived record (archive/<day>/<id>.json). */
  function archived(id: string): Record<string, unknown> | undefined {
    const root = path.join(home, 'archive');
    if (!existsSync(root)) return undefined;
    for (const day of readdirSync(root)) {
      const file = path.join(root, day, `${id}.json`);
      if (existsSync(file))
        return JSON.parse(readFileSync(file, 'utf8')) as Record<
          string,
          unknown
        >;
    }
    return undefined;
  }

  const inputs = (record: string) =>
    readRecord(record).filter((r) =>
      ['submit', 'submit-ignored', 'control', 'paste-start'].includes(r.type),
    );

  it('waits through a busy spell and an open approval dialog, then lands once', async () => {
    const { pane, record } = await startWorker([
      { print: REQ('w1', 'may I continue?') },
      { waitFile: file('busy') },
      { busy: 1500 },
      {
        approval: {
          question: 'Allow rm -rf build/?',
          untilFile: file('allow'),
        },
      },
      { wait: 'submit' },
    ]);
    bridge(pane);
    await detect('worker-1-w1');
    writeFileSync(file('busy'), '');
    await waitFor(
      async () => (await server.capture(pane)).includes('esc to interrupt'),
      { timeout: 10_000, message: 'busy line' },
    );
    await respond('worker-1-w1', 'yes, continue with the build');
    await waitFor(
      () => events('state.changed').some((e) => e.data?.to === 'approval'),
      { timeout: 15_000, message: 'the bridge sees the dialog' },
    );
    expect(await server.capture(pane)).toContain('Esc to cancel');
    expect(inputs(record)).toEqual([]);
    writeFileSync(file('allow'), '');
    await waitForEvent('request.confirmed', 'worker-1-w1');
    expect(
      inputs(record).filter(
        (r) => r.during === 'busy' || r.during === 'approval',
      ),
    ).toEqual([]);
    expect(readRecord(record).filter((r) => r.type === 'submit')).toEqual([
      expect.objectContaining({
        text: 'yes, continue with the build',
        during: 'idle',
      }),
    ]);
    expect(events('request.confirmed', 'worker-1-w1')).toHaveLength(1);
    expect(events('delivery.unconfirmed')).toEqual([]);
  });

  it('presses the submit key again when the first is ignored, and confirms', async () => {
    const { pane, record } = await startWorker(
      [{ print: REQ('r1', 'retry me') }, { wait: 'submit' }],
      ['--ignore-submits', '1'],
    );
    bridge(pane);
    await detect('worker-1-r1');
    await respond('worker-1-r1', 'run the migration after the API change');
    await waitForEvent('request.confirmed', 'worker-1-r1');
    expect(
      readRecord(record)
        .filter((r) => r.type === 'submit' || r.type === 'submit-ignored')
        .map((r) => [r.type, r.text]),
    ).toEqual([
      ['submit-ignored', 'run the migration after the API change'],
      ['submit', 'run the migration after the API change'],
    ]);
    const confirmed = events('request.confirmed', 'worker-1-r1');
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]?.data).toMatchObject({ submits: 2 });
    expect(events('delivery.unconfirmed')).toEqual([]);
    // Archived when the key was first pressed; the confirmation updates it.
    await waitFor(() => archived('worker-1-r1')?.stage === 'confirmed', {
      timeout: 10_000,
      message: 'the archived record says confirmed',
    });
  });

  it('reports delivery.unconfirmed for an agent that never takes the text, and never types it twice', async () => {
    const { pane, record } = await startWorker(
      [{ print: REQ('n1', 'you will not get through') }],
      ['--ignore-submits', '99'],
    );
    bridge(pane);
    await detect('worker-1-n1');
    await respond('worker-1-n1', 'this stays in the composer');
    await waitForEvent('delivery.unconfirmed', 'worker-1-n1');
    await waitForEvent('request.archived', 'worker-1-n1');
    // The default submitRetries is 2: three presses, one text.
    expect(
      readRecord(record).filter((r) => r.type === 'submit-ignored'),
    ).toHaveLength(3);
    expect(readRecord(record).filter((r) => r.type === 'submit')).toEqual([]);
    expect(events('request.delivered', 'worker-1-n1')).toHaveLength(1);
    await waitFor(() => archived('worker-1-n1')?.stage === 'unconfirmed', {
      timeout: 10_000,
      message: 'the archived record says unconfirmed',
    });
    expect(await server.capture(pane)).toContain('this stays in the composer');
    expect(
      (await server.capture(pane)).split('this stays in the composer'),
    ).toHaveLength(2);
  });

  it('leaves copy mode before typing', async () => {
    const { pane, record } = await startWorker([
      { print: REQ('c1', 'copy mode?') },
      { wait: 'submit' },
    ]);
    bridge(pane);
    await detect('worker-1-c1');
    await server.tmux('copy-mode', '-t', pane);
    expect(
      (
        await server.tmux(
          'display-message',
          '-p',
          '-t',
          pane,
          '#{pane_in_mode}',
        )
      ).trim(),
    ).toBe('1');
    await respond('worker-1-c1', 'typed after copy mode');
    await waitForEvent('request.confirmed', 'worker-1-c1');
    expect(readRecord(record).filter((r) => r.type === 'submit')).toEqual([
      expect.objectContaining({ text: 'typed after copy mode' }),
    ]);
    expect(
      (
        await server.tmux(
          'display-message',
          '-p',
          '-t',
          pane,
          '#{pane_in_mode}',
        )
      ).trim(),
    ).toBe('0');
    expect(events('request.confirmed', 'worker-1-c1')).toHaveLength(1);
  });

  describe('macs send', () => {
    it('types into a tagged agent, waiting while it is busy, and records what was sent', async () => {
      const { pane, record } = await startWorker([
        { busy: 1200 },
        { wait: 'submit' },
      ]);
      await harness.tagAgent(pane, 'worker-2');
      const sent = await runMacs(['send', 'worker-2', '-'], {
        home,
        socket: server.socket,
        input: 'line one\nline two',
      });
      expect(sent.exitCode, sent.stderr).toBe(0);
      expect(sent.stdout).toMatch(/sent 17 chars to worker-2 \(pane %\d+/);
      expect(readRecord(record).filter((r) => r.type === 'submit')).toEqual([
        expect.objectContaining({ text: 'line one\nline two', during: 'idle' }),
      ]);
      expect(
        readRecord(record).filter(
          (r) => r.during === 'busy' && r.type !== 'submit',
        ),
      ).toEqual([]);
      const event = events('send.delivered')[0];
      expect(event).toMatchObject({
        agent: 'worker-2',
        data: { confirmed: true, text: 'line one\nline two', method: 'paste' },
      });
    });

    it('says so, with exit 1, for an unknown agent and for a dead pane', async () => {
      const unknown = await runMacs(['send', 'nobody', 'hello'], {
        home,
        socket: server.socket,
      });
      expect(unknown.exitCode).toBe(1);
      expect(unknown.stderr).toMatch(/unknown agent 'nobody'/);

      const { pane } = await startWorker([{ exit: 3 }]);
      await harness.tagAgent(pane, 'gone-1');
      await waitFor(
        async () =>
          (
            await server.tmux(
              'display-message',
              '-p',
              '-t',
              pane,
              '#{pane_dead}',
            )
          ).trim() === '1',
        { timeout: 10_000, message: 'the agent exited' },
      );
      const dead = await runMacs(['send', 'gone-1', 'hello'], {
        home,
        socket: server.socket,
      });
      expect(dead.exitCode).toBe(1);
      // With the status when tmux knows it (tmux 3.3 sometimes does not).
      expect(dead.stderr).toMatch(/has exited( \(status 3\))?$/m);

      const usage = await runMacs(['send', 'bad/name', 'x'], {
        home,
        socket: server.socket,
      });
      expect(usage.exitCode).toBe(2);
    });

    it('has help with an example', async () => {
      const help = await runMacs(['send', '--help'], { home });
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toContain('macs send worker-1');
    });
  });
});
