import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileBackend } from '../../../src/backends/file.js';
import type {
  AnswerHandler,
  AttemptBackend,
  AttemptResult,
  BackendAnswer,
  BackendRequest,
} from '../../../src/backends/types.js';
import { createDispatcher } from '../../../src/bridge/route/dispatch-backend.js';
import { contextArchivePath } from '../../../src/bridge/route/context-archive.js';
import {
  ConfigSchema,
  type MacsConfigInput,
} from '../../../src/config/schema.js';
import { createEventLog, readEvents } from '../../../src/events/log.js';
import { createLogger } from '../../../src/log/logger.js';
import { buildContextPacket } from '../../../src/protocol/context-packet.js';
import { hashBody } from '../../../src/protocol/ids.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { makeTempHome } from '../../helpers/tmux-server.js';
import { waitFor } from '../../helpers/wait-for.js';

/** A working in-memory file backend: it only remembers what it was given. */
function fakeFileBackend(): FileBackend & { submitted: BackendRequest[] } {
  const submitted: BackendRequest[] = [];
  return {
    name: 'file',
    submitted,
    register: () => undefined,
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    rescan: () => Promise.resolve(),
    checkOutboxFile: () => Promise.resolve(),
    refuseEarly: () => Promise.resolve(),
    submit(request) {
      submitted.push(request);
      return Promise.resolve();
    },
  };
}

/** An exec-like backend that answers from a script of results. */
function scriptedBackend(
  results: AttemptResult[],
): AttemptBackend & { seen: BackendRequest[] } {
  const seen: BackendRequest[] = [];
  return {
    name: 'exec',
    seen,
    attempt(request) {
      seen.push(request);
      return Promise.resolve(
        results.shift() ?? { type: 'failed', reason: 'script ended' },
      );
    },
    stop: () => Promise.resolve(),
  };
}

describe('createDispatcher', () => {
  let home: string;
  let cleanup: () => void;
  let paths: HomePaths;
  let seq = 0;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-dispatch-'));
    paths = resolveHomePaths(home);
  });
  afterEach(() => cleanup());

  function setup(
    results: AttemptResult[],
    config: MacsConfigInput = { backend: 'exec' },
  ) {
    const file = fakeFileBackend();
    const exec = scriptedBackend(results);
    const answers: BackendAnswer[] = [];
    let collected = 0;
    const dispatcher = createDispatcher({
      config: ConfigSchema.parse(config),
      paths,
      events: createEventLog(paths),
      log: createLogger({ level: 'silent' }),
      file,
      exec,
      collectContext: (request) => {
        collected += 1;
        return Promise.resolve(
          buildContextPacket({
            ...request,
            requestId: request.id,
            screenLines: ['screen line'],
            contextLines: 40,
            recent: [],
            now: new Date(),
          }),
        );
      },
    });
    const onAnswer: AnswerHandler = (answer) => {
      answers.push(answer);
      return Promise.resolve('accepted');
    };
    dispatcher.register('worker-1', onAnswer);
    return { dispatcher, file, exec, answers, collected: () => collected };
  }

  const request = (
    id: string,
    body = `body of ${id}`,
    over: Partial<BackendRequest> = {},
  ): BackendRequest => ({
    id: `worker-1-${id}`,
    agent: 'worker-1',
    type: 'question',
    priority: 'normal',
    attributes: { id },
    body,
    bodyHash: hashBody(body),
    detectedAt: new Date(Date.now() + (seq += 1)).toISOString(),
    preset: 'generic',
    ...over,
  });

  const types = async (requestId: string) =>
    (await readEvents(paths, { requestId })).map((e) => [
      e.type,
      e.data?.backend ?? e.data?.reason ?? null,
    ]);

  it('hands a request to exec and the answer to the agent, recording where it went', async () => {
    const { dispatcher, exec, answers } = setup([
      { type: 'answered', text: 'do it', source: 'exec:fake' },
    ]);
    const r = request('q1');
    expect(await dispatcher.submit(r)).toEqual({
      backend: 'exec',
      recorded: true,
    });
    await waitFor(() => answers.length === 1);
    expect(answers[0]).toEqual({
      id: r.id,
      text: 'do it',
      source: 'exec:fake',
    });
    expect(exec.seen[0]?.context?.screen).toEqual(['screen line']);
    expect(await types(r.id)).toEqual([['request.routed', 'exec']]);
    expect(
      JSON.parse(readFileSync(contextArchivePath(paths, r), 'utf8')),
    ).toMatchObject({ requestId: r.id, body: r.body });
    await dispatcher.stop();
  });

  // Regression (issue 12, reproduction 4): with `--exec /bin/false` the
  // request fell back to the inbox and nobody was told. A fallback to a
  // person calls them like a first route to the inbox does.
  it('falls back to the file inbox when exec fails, and calls a person', async () => {
    const { dispatcher, file } = setup([
      { type: 'failed', reason: 'exit-status', detail: { exitCode: 3 } },
    ]);
    const r = request('x1');
    await dispatcher.submit(r);
    await waitFor(() => file.submitted.length === 1);
    expect(file.submitted[0]?.context?.requestId).toBe(r.id);
    await waitFor(async () => (await types(r.id)).length === 5);
    expect(await types(r.id)).toEqual([
      ['request.routed', 'exec'],
      ['request.failed', 'exec'],
      ['request.fallback', 'exit-status'],
      ['request.routed', 'file'],
      ['attention', 'waiting-for-person'],
    ]);
    const [called] = await readEvents(paths, { type: 'attention' });
    expect(called?.data).toMatchObject({ fallbackFrom: 'exec' });
    const failed = (await readEvents(paths, { type: 'request.failed' }))[0];
    expect(failed?.data).toMatchObject({ exitCode: 3 });
    await dispatcher.stop();
  });

  it('escalates a repeated question, and one over the hourly limit, to a person', async () => {
    const { dispatcher, file, answers } = setup(
      [
        { type: 'answered', text: 'a', source: 'exec' },
        { type: 'answered', text: 'b', source: 'exec' },
      ],
      { backend: 'exec', maxRequestsPerHour: 3 },
    );
    await dispatcher.submit(request('s1', 'same question'));
    await waitFor(() => answers.length === 1);
    await dispatcher.submit(request('s2', 'same question'));
    await waitFor(() => file.submitted.length === 1);
    expect(file.submitted.map((r) => r.id)).toEqual(['worker-1-s2']);
    await dispatcher.submit(request('s3', 'another question'));
    await waitFor(() => answers.length === 2);
    await dispatcher.submit(request('s4', 'one too many'));
    await waitFor(() => file.submitted.length === 2);
    expect(file.submitted.map((r) => r.id)).toEqual([
      'worker-1-s2',
      'worker-1-s4',
    ]);
    const attention = await waitFor(async () => {
      const found = await readEvents(paths, { type: 'attention' });
      return found.length >= 2 ? found : undefined;
    });
    expect(attention.map((e) => [e.requestId, e.data?.reason])).toEqual([
      ['worker-1-s2', 'repeat'],
      ['worker-1-s4', 'rate-limit'],
    ]);
    await dispatcher.stop();
  });

  it('remembers recent requests across a restart, from the event log', async () => {
    const events = createEventLog(paths);
    for (const id of ['old1', 'old2']) {
      await events.emit({
        agent: 'worker-1',
        type: 'request.detected',
        requestId: `worker-1-${id}`,
        data: { hash: hashBody(id).slice(0, 12) },
      });
    }
    const { dispatcher, file } = setup([], {
      backend: 'exec',
      maxRequestsPerHour: 2,
    });
    await dispatcher.submit(request('new'));
    await waitFor(() => file.submitted.length === 1);
    expect(file.submitted.map((r) => r.id)).toEqual(['worker-1-new']);
    await dispatcher.stop();
  });

  // Regression: a request for a person reached the inbox only after its
  // context packet (a tmux capture and a git call) was built, adding tens of
  // milliseconds to detection. Now the inbox gets it at once and the context
  // follows, unless the request was answered and archived meanwhile.
  it('puts a request for a person in the inbox before its context, and never brings back an archived one', async () => {
    const { dispatcher, file, collected } = setup([], { backend: 'file' });
    await dispatcher.submit(request('fast'));
    await waitFor(() => file.submitted.length >= 1);
    expect(file.submitted[0]?.context).toBeUndefined();
    // Let the context be built and the chain run to its end before stopping.
    await waitFor(() => collected() === 1);
    await dispatcher.stop();
    // No inbox/<id>.json by the time the context was ready (the fake backend
    // writes none, as after an archive): the request is not written again.
    expect(file.submitted).toHaveLength(1);
  });

  it('keeps a resumed request with a person when its inbox file exists, and builds its context once', async () => {
    const first = setup([{ type: 'failed', reason: 'timeout' }]);
    const r = request('k1');
    await first.dispatcher.submit(r);
    await waitFor(() => first.file.submitted.length === 1);
    await first.dispatcher.stop();
    expect(first.collected()).toBe(1);
    // What the real file backend would have written.
    mkdirSync(paths.inbox, { recursive: true });
    writeFileSync(path.join(paths.inbox, `${r.id}.json`), '{}');

    const second = setup([]);
    expect(
      await second.dispatcher.submit({ ...r, previousBackend: 'exec' }),
    ).toEqual({ backend: 'file', recorded: true });
    // Into the inbox at once, then again with the context packet.
    await waitFor(() => second.file.submitted.length === 2);
    expect(second.exec.seen).toEqual([]);
    expect(second.collected()).toBe(0);
    expect(second.file.submitted[0]?.context).toBeUndefined();
    expect(second.file.submitted[1]?.context?.requestId).toBe(r.id);
    expect(existsSync(contextArchivePath(paths, r))).toBe(true);
    await second.dispatcher.stop();
  });

  it('does not fall back for a try that was stopped', async () => {
    const { dispatcher, file } = setup([{ type: 'aborted' }]);
    await dispatcher.submit(request('a1'));
    await dispatcher.stop();
    expect(file.submitted).toEqual([]);
  });
});
