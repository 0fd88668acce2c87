import {
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { sanitizeText } from '../../src/protocol/sanitize.js';
import {
  readAllEvents,
  readRecord,
  REQ,
  runMacs,
  waitForEvents,
  type Step,
} from '../helpers/macs.js';
import { type TestTmuxServer } from '../helpers/tmux-server.js';
import { useTmuxHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

describe('bridge with the file backend, on a real tmux', () => {
  const harness = useTmuxHarness();
  let server: TestTmuxServer;
  let home: string;
  beforeEach(() => ({ server, home } = harness));

  const startWorker = (script: Step[]) => harness.startWorker(script);

  const bridge = (pane: string, agent = 'worker-1') =>
    harness.startBridge([
      '--worker-pane',
      pane,
      '--agent',
      agent,
      '--backend',
      'file',
    ]);

  const waitForEvent = (type: string, requestId?: string, count = 1) =>
    waitForEvents(home, type, { requestId, count, timeout: 15_000 });

  const submits = (record: string) =>
    readRecord(record).filter((r) => r.type === 'submit');

  it('detects a request amid noise, writes the exact body, and delivers one submission without the notes', async () => {
    const body =
      'Should I migrate the users table now or after the API change?\nOptions: (a) now (b) later';
    const { pane, record } = await startWorker([
      { noise: 5 },
      { print: `\x1b[32mthinking\x1b[0m about it\r\n` },
      { print: REQ('q-17', body, ' type=question') },
      { wait: 'submit' },
      { print: 'continuing\n' },
    ]);
    const b = bridge(pane);
    const id = 'worker-1-q-17';
    const inboxFile = path.join(home, 'inbox', `${id}.txt`);
    // The metadata is written after the body: wait for it, not the body.
    await waitFor(() => existsSync(path.join(home, 'inbox', `${id}.json`)), {
      timeout: 15_000,
      message: `inbox file; bridge said: ${b.output()}`,
    });
    expect(readFileSync(inboxFile, 'utf8')).toBe(body);
    const meta = JSON.parse(
      readFileSync(path.join(home, 'inbox', `${id}.json`), 'utf8'),
    );
    expect(meta).toMatchObject({
      id,
      agent: 'worker-1',
      type: 'question',
      workerId: 'q-17',
    });

    // The file backend writes the inbox files, then the bridge records the
    // request as routed: `macs inbox` may run in between.
    const listed = await waitFor(
      async () => {
        const inbox = await runMacs(['inbox', '--json'], {
          home,
          socket: server.socket,
        });
        expect(inbox.exitCode).toBe(0);
        const requests = JSON.parse(inbox.stdout) as { stage?: string }[];
        return requests[0]?.stage === 'routed' ? requests : undefined;
      },
      { timeout: 15_000, message: 'the request listed as routed' },
    );
    expect(listed).toEqual([
      expect.objectContaining({ id, stage: 'routed', body }),
    ]);

    const answer = [
      'WORKER INSTRUCTIONS:',
      'Migrate after the API change.',
      'First finish the endpoint tests.',
      '',
      'NOTES:',
      'The worker keeps asking about ordering; consider a plan file.',
    ].join('\n');
    const respond = await runMacs(['respond', id, answer], {
      home,
      socket: server.socket,
    });
    expect(respond.exitCode, respond.stderr).toBe(0);

    await waitFor(() => submits(record).length >= 1, {
      timeout: 15_000,
      message: 'a submission',
    });
    await waitForEvent('request.archived', id);
    const got = submits(record);
    expect(got).toHaveLength(1);
    expect(got[0]?.text).toBe(
      'Migrate after the API change.\nFirst finish the endpoint tests.',
    );
    expect(readRecord(record).filter((r) => r.type === 'control')).toEqual([]);

    const day = readdirSync(path.join(home, 'archive'))[0] ?? '';
    const dir = path.join(home, 'archive', day);
    expect(readFileSync(path.join(dir, `${id}.request.txt`), 'utf8')).toBe(
      body,
    );
    expect(
      readFileSync(path.join(dir, `${id}.response.txt`), 'utf8'),
    ).toContain('NOTES:');
    const archived = JSON.parse(
      readFileSync(path.join(dir, `${id}.json`), 'utf8'),
    );
    for (const key of ['detectedAt', 'routedAt', 'answeredAt', 'deliveredAt'])
      expect(archived[key]).toMatch(/^\d{4}-/);
    expect(existsSync(inboxFile)).toBe(false);
    expect(existsSync(path.join(home, 'outbox', `${id}.txt`))).toBe(false);

    const stages = readAllEvents(home)
      .filter((e) => e.requestId === id)
      .map((e) => e.type)
      .filter((t) =>
        [
          'request.detected',
          'request.routed',
          'request.answered',
          'request.delivered',
        ].includes(t),
      );
    expect(stages).toEqual([
      'request.detected',
      'request.routed',
      'request.answered',
      'request.delivered',
    ]);

    const byRequest = await runMacs(['events', '--request', id, '--json'], {
      home,
      socket: server.socket,
    });
    expect(
      JSON.parse(byRequest.stdout).map((e: { type: string }) => e.type),
    ).toContain('request.delivered');
  });

  it('types hostile text exactly, minus control characters, and never presses a control key', async () => {
    const { pane, record } = await startWorker([
      { print: REQ('h1', 'give me something nasty') },
      { wait: 'submit' },
    ]);
    bridge(pane);
    const id = 'worker-1-h1';
    await waitFor(() => existsSync(path.join(home, 'inbox', `${id}.txt`)), {
      timeout: 15_000,
    });
    const filler = 'lorem ipsum dolor sit amet '.repeat(760); // ~20 KB
    const hostile = [
      'C-c Enter Escape ; echo hi;',
      `quotes ' " \` and $(rm -rf ~) and \${HOME}`,
      'tab\there and emoji 🚀🧪 and ünïcödé',
      'escapes: \x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[201~ end-of-paste trick',
      'bell\x07 backspace\x08 null-free',
      filler,
      'last line ends with ;',
    ].join('\n');
    writeFileSync(path.join(home, 'outbox', `${id}.txt`), hostile);
    await waitFor(() => submits(record).length >= 1, {
      timeout: 20_000,
      message: 'hostile submission',
    });
    await waitForEvent('request.archived', id);
    const got = submits(record);
    expect(got).toHaveLength(1);
    const expected = sanitizeText(hostile).replace(/\n+$/, '');
    const text = got[0]?.text ?? '';
    const firstDiff = expected.split('').findIndex((ch, i) => text[i] !== ch);
    expect({
      firstDiff,
      context: text.slice(Math.max(0, firstDiff - 20), firstDiff + 20),
      length: text.length,
    }).toEqual({
      firstDiff:
        text.length === expected.length
          ? -1
          : Math.min(text.length, expected.length),
      context: expect.any(String),
      length: expected.length,
    });
    expect(got[0]?.text).toContain('$(rm -rf ~)');
    expect(got[0]?.text?.endsWith('last line ends with ;')).toBe(true);
    expect(readRecord(record).filter((r) => r.type === 'control')).toEqual([]);
  });

  it('types nothing while the worker shows its busy line', async () => {
    const marker = path.join(home, 'answered.flag');
    const { pane, record } = await startWorker([
      { print: REQ('b1', 'may I continue?') },
      { waitFile: marker },
      { busy: 1500 },
      { wait: 'submit' },
    ]);
    bridge(pane);
    const id = 'worker-1-b1';
    await waitFor(() => existsSync(path.join(home, 'inbox', `${id}.txt`)), {
      timeout: 15_000,
    });
    writeFileSync(marker, 'go');
    await waitFor(
      async () => (await server.capture(pane)).includes('esc to interrupt'),
      { timeout: 10_000, message: 'busy line' },
    );
    await runMacs(['respond', id, 'yes, continue'], {
      home,
      socket: server.socket,
    });
    await waitFor(() => submits(record).length >= 1, {
      timeout: 20_000,
      message: 'delivery after busy',
    });
    const inputs = readRecord(record).filter(
      (r) => r.type === 'submit' || r.type === 'control' || r.type === 'text',
    );
    expect(inputs.filter((r) => r.during === 'busy')).toEqual([]);
    expect(submits(record)).toEqual([
      expect.objectContaining({ text: 'yes, continue', during: 'idle' }),
    ]);
  });

  it('after kill -9 before the answer, delivers once and reads what was printed while it was down', async () => {
    const second = path.join(home, 'second.flag');
    const { pane, record } = await startWorker([
      { print: REQ('k1', 'first question') },
      { waitFile: second },
      { print: REQ('k2', 'second question, printed while the bridge is down') },
      { wait: 'submit' },
      { wait: 'submit' },
    ]);
    const first = bridge(pane);
    await waitFor(
      () => existsSync(path.join(home, 'inbox', 'worker-1-k1.txt')),
      { timeout: 15_000 },
    );
    first.child.kill('SIGKILL');
    await first.exited;
    writeFileSync(path.join(home, 'outbox', 'worker-1-k1.txt'), 'answer one');
    writeFileSync(second, 'go');
    await waitFor(
      async () => (await server.capture(pane)).includes('second question'),
      { timeout: 10_000 },
    );

    bridge(pane);
    await waitFor(
      () => existsSync(path.join(home, 'inbox', 'worker-1-k2.txt')),
      { timeout: 15_000, message: 'k2 detected after restart' },
    );
    await waitFor(() => submits(record).length >= 1, { timeout: 15_000 });
    await runMacs(['respond', 'worker-1-k2', 'answer two'], {
      home,
      socket: server.socket,
    });
    await waitFor(() => submits(record).length >= 2, { timeout: 15_000 });
    await waitForEvent('request.archived', 'worker-1-k2');
    expect(submits(record).map((s) => s.text)).toEqual([
      'answer one',
      'answer two',
    ]);
    expect(
      readAllEvents(home)
        .filter((e) => e.type === 'request.detected')
        .map((e) => e.requestId),
    ).toEqual(['worker-1-k1', 'worker-1-k2']);
  });

  it('after kill -9 between answer and delivery, delivers exactly once', async () => {
    const { pane, record } = await startWorker([
      { print: REQ('d1', 'answer me while I am busy') },
      { busy: 4000 },
      { wait: 'submit' },
    ]);
    const first = bridge(pane);
    await waitFor(
      () => existsSync(path.join(home, 'inbox', 'worker-1-d1.txt')),
      { timeout: 15_000 },
    );
    await runMacs(['respond', 'worker-1-d1', 'the one answer'], {
      home,
      socket: server.socket,
    });
    await waitForEvent('request.answered', 'worker-1-d1');
    first.child.kill('SIGKILL');
    await first.exited;
    expect(submits(record)).toEqual([]);

    bridge(pane);
    await waitFor(() => submits(record).length >= 1, {
      timeout: 20_000,
      message: 'delivery after restart',
    });
    await waitForEvent('request.archived', 'worker-1-d1');
    expect(submits(record).map((s) => s.text)).toEqual(['the one answer']);
    expect(
      readAllEvents(home).filter((e) => e.type === 'request.delivered'),
    ).toHaveLength(1);
  });

  it('ignores odd outbox files with a warning each, and still delivers a good answer', async () => {
    const { pane, record } = await startWorker([
      { print: REQ('o1', 'odd files test') },
      { wait: 'submit' },
    ]);
    const b = bridge(pane);
    const id = 'worker-1-o1';
    await waitFor(() => existsSync(path.join(home, 'inbox', `${id}.txt`)), {
      timeout: 15_000,
    });
    const outbox = path.join(home, 'outbox');
    writeFileSync(path.join(outbox, `.${id}.txt.swp`), 'swap');
    writeFileSync(path.join(outbox, `${id}.txt~`), 'backup');
    writeFileSync(
      path.join(outbox, 'worker-1-nobody.txt'),
      'for an unknown id',
    );
    writeFileSync(path.join(outbox, `${id}.txt`), '');
    await waitFor(
      () =>
        readAllEvents(home).some(
          (e) => e.type === 'outbox.ignored' && e.data?.reason === 'empty',
        ),
      { timeout: 10_000, message: 'empty warning' },
    );
    writeFileSync(path.join(outbox, `${id}.txt`), 'x'.repeat(1024 * 1024 + 1));
    await waitFor(
      () => {
        const events = readAllEvents(home);
        if (
          events.some(
            (e) =>
              e.type === 'outbox.ignored' && e.data?.reason === 'too-large',
          )
        )
          return true;
        // Said on a timeout: what the bridge did with the files.
        throw new Error(
          JSON.stringify({
            ignored: events
              .filter((e) => e.type.startsWith('outbox') || e.requestId === id)
              .map((e) => [e.type, e.data]),
            outbox: readdirSync(outbox),
          }),
        );
      },
      { timeout: 10_000, message: 'too-large warning' },
    );
    const target = path.join(home, 'elsewhere.txt');
    writeFileSync(target, 'secret');
    const link = path.join(outbox, `${id}.txt`);
    // (The too-large file may have been moved aside already.)
    rmSync(link, { force: true });
    symlinkSync(target, link);
    await waitFor(
      () =>
        readAllEvents(home).some(
          (e) => e.type === 'outbox.ignored' && e.data?.reason === 'symlink',
        ),
      { timeout: 10_000, message: 'symlink warning' },
    );
    await waitFor(
      () =>
        readAllEvents(home).some(
          (e) => e.type === 'outbox.ignored' && e.data?.reason === 'temp-file',
        ),
      { timeout: 10_000, message: 'lingering temp-file warning' },
    );
    const reasons = new Set(
      readAllEvents(home)
        .filter((e) => e.type === 'outbox.ignored')
        .map((e) => e.data?.reason),
    );
    for (const reason of [
      'temp-file',
      'unknown-request',
      'empty',
      'too-large',
      'symlink',
    ])
      expect(reasons).toContain(reason);
    expect(submits(record)).toEqual([]);
    expect(b.child.exitCode).toBeNull();

    // A refused file is moved to outbox/rejected/ once it has stopped
    // changing, with a note of why, so it blocks no later answer.
    await waitFor(
      () =>
        existsSync(path.join(outbox, 'rejected', 'worker-1-nobody.txt.why')) &&
        !existsSync(link),
      { timeout: 15_000, message: 'refused files moved aside' },
    );
    expect(
      readFileSync(
        path.join(outbox, 'rejected', 'worker-1-nobody.txt.why'),
        'utf8',
      ),
    ).toMatch(/^unknown-request: no pending request has this id/);
    // The editor's files stay where they are.
    expect(existsSync(path.join(outbox, `.${id}.txt.swp`))).toBe(true);
    await runMacs(['respond', id, 'finally a real answer'], {
      home,
      socket: server.socket,
    });
    await waitFor(() => submits(record).length >= 1, { timeout: 15_000 });
    expect(submits(record).map((s) => s.text)).toEqual([
      'finally a real answer',
    ]);
  });
});
