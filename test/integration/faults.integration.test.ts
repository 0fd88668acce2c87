import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  watch,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_AGENT,
  readAllEvents,
  readRecord,
  startBridge,
  type BridgeProcess,
} from '../helpers/macs.js';
import {
  makeTempHome,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

// Crash safety under fire: the bridge is killed with SIGKILL at random
// moments while a worker prints a stream of requests and an instant answerer
// replies to each. Strategy: every request must end archived exactly once,
// delivered at most once (a kill while typing leaves it `unconfirmed`, never
// re-sent), and no answer may ever reach the worker twice.
const REQUESTS = 300;
const KILLS = 30;

describe('faults: random kill -9 of the bridge', () => {
  let server: TestTmuxServer;
  let home: string;
  let cleanup: () => void;
  let bridge: BridgeProcess | undefined;
  /** The answerer's watcher and timer, stopped even when a test times out. */
  let stopAnswering: () => void = () => undefined;

  beforeEach(async () => {
    server = await startTmuxServer();
    ({ home, cleanup } = makeTempHome());
  });

  afterEach(async () => {
    stopAnswering();
    bridge?.child.kill('SIGKILL');
    if (bridge) await bridge.exited;
    await server.kill();
    if (process.env.MACS_TEST_KEEP_HOME) console.log(`kept home: ${home}`);
    else cleanup();
  });

  it(
    `${KILLS} kills during ${REQUESTS} requests: none lost, none delivered twice`,
    // A guard: on a shared, busy machine 300 requests through 30 kills take
    // minutes.
    { timeout: 1_200_000 },
    async () => {
      // A fast preset so 300 deliveries fit in the test's time.
      writeFileSync(
        path.join(home, 'macs.config.json'),
        JSON.stringify({
          presets: { fast: { extends: 'generic', submitDelayMs: 5 } },
          maxRequestsPerHour: 1000,
          limits: { maxRequestsPerMinute: 100_000, maxPendingRequests: 1000 },
          backstopMs: 50,
        }),
      );
      const script = Array.from({ length: REQUESTS }, (_, i) => [
        {
          print: `<<CONTROLLER_REQUEST id=r${i}>>\nrequest number ${i}\n<<CONTROLLER_REQUEST_END>>\n`,
        },
        { sleep: 15 },
      ]).flat();
      const start = path.join(home, 'start.flag');
      const scriptFile = path.join(home, 'script.json');
      writeFileSync(
        scriptFile,
        JSON.stringify([{ waitFile: start }, ...script]),
      );
      const record = path.join(home, 'record.jsonl');
      const pane = await server.spawnPane([
        process.execPath,
        FAKE_AGENT,
        '--script',
        scriptFile,
        '--record',
        record,
      ]);
      const outputs: (() => string)[] = [];
      const launch = () => {
        bridge = startBridge(
          [
            '--worker-pane',
            pane,
            '--agent',
            'w',
            '--preset',
            'fast',
            '--quiet',
          ],
          { home, socket: server.socket },
        );
        outputs.push(bridge.output);
        return bridge;
      };
      launch();
      await waitFor(() => existsSync(path.join(home, 'outbox')), {
        timeout: 15_000,
      });

      // The instant answerer: answer every inbox request once, write then rename.
      const inbox = path.join(home, 'inbox');
      const answered = new Set<string>();
      const answer = () => {
        for (const name of readdirSync(inbox)) {
          const m = /^(w-r\d+)\.json$/.exec(name);
          if (!m?.[1] || answered.has(m[1])) continue;
          answered.add(m[1]);
          const temp = path.join(home, 'outbox', `.${m[1]}.tmp`);
          writeFileSync(temp, `answer for ${m[1]}`);
          renameSync(temp, path.join(home, 'outbox', `${m[1]}.txt`));
        }
      };
      const watcher = watch(inbox, answer);
      const timer = setInterval(answer, 50);
      stopAnswering = () => {
        watcher.close();
        clearInterval(timer);
      };
      writeFileSync(start, 'go');

      try {
        for (let kill = 0; kill < KILLS; kill += 1) {
          const current = bridge;
          // Let the bridge get going again, then kill it at a random moment.
          await waitFor(
            () =>
              readAllEvents(home).filter((e) => e.type.startsWith('bridge.'))
                .length > kill,
            {
              timeout: 15_000,
              message: `bridge start #${kill + 1}; last bridge said: ${outputs.at(-1)?.() ?? ''}`,
            },
          );
          const until = Date.now() + 100 + Math.floor(Math.random() * 400);
          await waitFor(() => Date.now() >= until, { timeout: 2_000 });
          current?.child.kill('SIGKILL');
          await current?.exited;
          launch();
        }
        const archivedIds = () => {
          const dir = path.join(home, 'archive');
          if (!existsSync(dir)) return [];
          return readdirSync(dir).flatMap((day) =>
            readdirSync(path.join(dir, day))
              .filter((f) => /^w-r\d+\.json$/.test(f))
              .map((f) => f.replace(/\.json$/, '')),
          );
        };
        await waitFor(() => archivedIds().length >= REQUESTS, {
          // A guard, scaled like every wait: under a loaded machine's whole
          // suite the 300 round trips after the last kill take minutes.
          timeout: 300_000,
          interval: 200,
          message: `all ${REQUESTS} requests archived`,
        }).catch((error: unknown) => {
          // Say which are missing and where each one stopped.
          const done = new Set(archivedIds());
          const events = readAllEvents(home);
          const missing = Array.from(
            { length: REQUESTS },
            (_, i) => `w-r${i}`,
          ).filter((id) => !done.has(id));
          const last = (id: string) =>
            events.filter((e) => e.requestId === id).at(-1)?.type ??
            'never seen';
          throw new Error(
            `${error instanceof Error ? error.message : String(error)}; ${done.size} archived, missing ${missing.length}: ` +
              missing
                .slice(0, 20)
                .map((id) => `${id} (last: ${last(id)})`)
                .join(', '),
          );
        });

        const archived = archivedIds();
        expect(new Set(archived).size).toBe(REQUESTS);
        const submits = readRecord(record).filter((r) => r.type === 'submit');
        const texts = submits.map((s) => s.text ?? '');
        // Never twice: every submitted answer is distinct.
        const events = readAllEvents(home);
        const story = (id: string) =>
          `${id}:\n  ${events
            .filter((e) => e.requestId === id)
            .map((e) => `${e.type} ${JSON.stringify(e.data ?? {})}`)
            .join('\n  ')}`;
        const typedTwice = texts.filter((t, i) => texts.indexOf(t) !== i);
        expect(
          typedTwice,
          typedTwice.map((t) => story(t.replace('answer for ', ''))).join('\n'),
        ).toEqual([]);
        for (const text of texts)
          expect(
            text,
            text === ''
              ? (() => {
                  const at = texts.indexOf('');
                  const near = texts.slice(Math.max(0, at - 2), at + 2);
                  return `an empty submission among ${JSON.stringify(near)}\n${near
                    .filter(Boolean)
                    .map((t) => story(t.replace('answer for ', '')))
                    .join('\n')}`;
                })()
              : [...text.matchAll(/w-r\d+/g)]
                  .map((m) => story(m[0]))
                  .join('\n'),
          ).toMatch(/^answer for w-r\d+$/);
        // None lost: each request was delivered, or recorded as unconfirmed
        // because the bridge died while typing it.
        const unconfirmed = new Set(
          events
            .filter((e) => e.type === 'delivery.unconfirmed')
            .map((e) => e.requestId),
        );
        const delivered = new Set(
          texts.map((t) => t.replace('answer for ', '')),
        );
        for (let i = 0; i < REQUESTS; i += 1) {
          const id = `w-r${i}`;
          const story = events
            .filter((e) => e.requestId === id)
            .map(
              (e) =>
                `${e.type}${e.data?.method ? `(${JSON.stringify(e.data.method)})` : ''}`,
            )
            .join(' ');
          expect(
            delivered.has(id) || unconfirmed.has(id),
            `${id}: ${story}`,
          ).toBe(true);
        }
        // No request was detected twice across all restarts. (The state file,
        // not the event log, is the record: a kill between saving a stage and
        // appending its event can lose that one event, never the request.)
        const detected = events
          .filter((e) => e.type === 'request.detected')
          .map((e) => e.requestId);
        const twice = detected.filter((id, i) => detected.indexOf(id) !== i);
        expect(
          twice,
          twice
            .map(
              (id) =>
                `${id}: ${events
                  .filter((e) => e.requestId === id)
                  .map((e) => `${e.type} ${JSON.stringify(e.data ?? {})}`)
                  .join('\n  ')}`,
            )
            .join('\n'),
        ).toEqual([]);
        expect(detected.length).toBeGreaterThan(REQUESTS - KILLS);
        expect(unconfirmed.size).toBeLessThanOrEqual(KILLS);
        const pasted = readFileSync(record, 'utf8');
        expect(pasted).not.toContain('"control"');
      } finally {
        watcher.close();
        clearInterval(timer);
      }
    },
  );

  it('stops with a clear error and exit 3 when the tmux server is killed', async () => {
    const pane = await server.spawnPane([
      process.execPath,
      FAKE_AGENT,
      '--script-json',
      '[]',
      '--record',
      path.join(home, 'record.jsonl'),
    ]);
    bridge = startBridge(['--worker-pane', pane, '--agent', 'w', '--quiet'], {
      home,
      socket: server.socket,
    });
    await waitFor(
      () => readAllEvents(home).some((e) => e.type === 'bridge.started'),
      { timeout: 15_000, message: 'the bridge started' },
    );
    await server.kill();
    expect(await bridge.exited).toBe(3);
    expect(bridge.output()).toMatch(
      /macs: tmux server 'macs-test-[0-9a-f]+' \(tmux -L macs-test-[0-9a-f]+\) is no longer running/,
    );
    expect(bridge.output()).toContain('hint: start the session again');
  });
});
