// Issue 12, the pane-churn soak: three workers on one `bridge --all`, 60
// requests answered by an instant answerer (the fake exec), while worker
// programs are killed and started again at random (the pane killed and a new
// one tagged for the agent, or the program respawned in its pane), and a
// stray second bridge is tried on a worker's pane. Strategy: each program
// run ("incarnation") asks requests whose ids name it and records every
// submission it reads, and each answer names the request it answers. Then:
// an answer read by an incarnation that did not ask it is misrouted; an
// answer read twice is doubled; a request never archived is lost; a request
// detected twice was raised twice; an empty submission is a stray Enter.
// The choices come from a fixed seed, so a failure can be replayed.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmuxHarness } from '../helpers/harness.js';
import {
  FAKE_AGENT,
  FAKE_EXEC,
  findEvents,
  readAllEvents,
  readRecord,
  REQ,
  runMacs,
} from '../helpers/macs.js';
import { waitFor } from '../helpers/wait-for.js';

const WORKERS = ['worker-1', 'worker-2', 'worker-3'];
const REQUESTS_PER_WORKER = 20;
const SEED = 0x6d616373;

/** A small seeded generator (mulberry32), so every run makes the same choices. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Incarnation {
  agent: string;
  name: string;
  /** Requests it asks and gets answered before it is ended. */
  answered: number;
  /** It asks one more, which is still open when it is ended (not the last one). */
  extra: boolean;
  record: string;
  /** How it replaces the one before: a new pane, or respawned in the pane. */
  how: 'new-pane' | 'respawn';
}

describe('pane churn (issue 12)', () => {
  const harness = useTmuxHarness({ gracefulStop: true });

  it(
    `${WORKERS.length * REQUESTS_PER_WORKER} requests while worker panes die and come back: none misrouted, doubled, lost or raised twice`,
    { timeout: 300_000 },
    async () => {
      const next = random(SEED);
      const home = harness.home;
      writeFileSync(
        path.join(home, 'macs.config.json'),
        JSON.stringify({
          presets: { fast: { extends: 'generic', submitDelayMs: 10 } },
          workers: WORKERS.map((name) => ({ name, preset: 'fast' })),
          maxRequestsPerHour: 1000,
        }),
      );

      // The plan: per worker three incarnations; the first two are ended
      // with a request open, the last answers what is left of the 20.
      const plan = new Map<string, Incarnation[]>();
      for (const agent of WORKERS) {
        const runs: Incarnation[] = [];
        let left = REQUESTS_PER_WORKER;
        for (let i = 1; i <= 3; i += 1) {
          const last = i === 3;
          const answered = last ? left : 3 + Math.floor(next() * 4);
          left -= answered + (last ? 0 : 1);
          const name = `${agent.slice(-1)}i${i}`;
          runs.push({
            agent,
            name,
            answered,
            extra: !last,
            record: path.join(home, `${name}.record.jsonl`),
            how: next() < 0.5 ? 'new-pane' : 'respawn',
          });
        }
        plan.set(agent, runs);
      }
      const argvOf = (run: Incarnation): string[] => {
        const steps: unknown[] = [];
        const count = run.answered + (run.extra ? 1 : 0);
        for (let n = 1; n <= count; n += 1)
          steps.push(
            {
              print: REQ(`${run.name}-${n}`, `${run.name} asks question ${n}`),
            },
            { wait: 'submit' },
          );
        const script = path.join(home, `${run.name}.steps.json`);
        writeFileSync(script, JSON.stringify(steps));
        return [
          process.execPath,
          FAKE_AGENT,
          '--script',
          script,
          '--record',
          run.record,
        ];
      };
      const quote = (argv: string[]) =>
        argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
      const submits = (run: Incarnation) =>
        readRecord(run.record)
          .filter((e) => e.type === 'submit')
          .map((e) => e.text ?? '');
      const detected = (id: string) =>
        findEvents(home, 'request.detected', id).length > 0;

      const panes = new Map<string, string>();
      for (const agent of WORKERS) {
        const first = plan.get(agent)?.[0];
        if (!first) throw new Error('no plan');
        const pane = await harness.server.spawnPane(argvOf(first));
        await harness.tagAgent(pane, agent);
        panes.set(agent, pane);
      }
      const bridge = harness.startBridge([
        '--all',
        '--backend',
        'exec',
        '--exec',
        JSON.stringify([
          process.execPath,
          FAKE_EXEC,
          '--mode',
          'answer',
          '--id',
          '{id}',
        ]),
      ]);

      // A stray second bridge, tried while the session works.
      let strayTried = false;
      const tryStray = async () => {
        strayTried = true;
        const pane = panes.get('worker-2') ?? '';
        for (const agent of ['stray', 'worker-2']) {
          const stray = await runMacs(
            [
              'bridge',
              '--worker-pane',
              pane,
              '--agent',
              agent,
              '--backend',
              'file',
            ],
            { home, socket: harness.server.socket },
          );
          expect(stray.exitCode, stray.stderr).toBe(1);
        }
      };

      const drive = async (agent: string) => {
        const runs = plan.get(agent) ?? [];
        for (const [index, run] of runs.entries()) {
          if (index > 0) {
            const pane = panes.get(agent) ?? '';
            if (run.how === 'respawn') {
              await harness.server.tmux(
                'respawn-pane',
                '-k',
                '-t',
                pane,
                quote(argvOf(run)),
              );
            } else {
              await harness.server.tmux('kill-pane', '-t', pane);
              const fresh = await harness.server.spawnPane(argvOf(run));
              await harness.tagAgent(fresh, agent);
              panes.set(agent, fresh);
            }
          }
          await waitFor(() => submits(run).length >= run.answered, {
            timeout: 120_000,
            message: `${run.name} got ${run.answered} answers`,
          });
          if (agent === 'worker-2' && index === 1 && !strayTried)
            await tryStray();
          // The one more it asks is detected before its program is ended.
          if (run.extra)
            await waitFor(
              () => detected(`${agent}-${run.name}-${run.answered + 1}`),
              {
                timeout: 60_000,
                message: `${run.name}'s last request detected`,
              },
            );
        }
      };
      const all = [...plan.values()].flat();
      const expectedIds = all.flatMap((run) =>
        Array.from(
          { length: run.answered + (run.extra ? 1 : 0) },
          (_, i) => `${run.agent}-${run.name}-${i + 1}`,
        ),
      );
      /** The counts of what went wrong (and of how requests ended). */
      const tally = () => {
        const detections = findEvents(home, 'request.detected');
        const raisedTwice = expectedIds.filter(
          (id) => detections.filter((e) => e.requestId === id).length > 1,
        ).length;
        const lost = expectedIds.filter(
          (id) => findEvents(home, 'request.archived', id).length === 0,
        ).length;
        let misrouted = 0;
        let stray = 0;
        const received = new Map<string, number>();
        for (const run of all) {
          for (const text of submits(run)) {
            const id = /^exec answer for (\S+)$/.exec(text)?.[1];
            if (!id) {
              stray += 1;
              continue;
            }
            received.set(id, (received.get(id) ?? 0) + 1);
            if (!id.startsWith(`${run.agent}-${run.name}-`)) misrouted += 1;
          }
        }
        const doubled = [...received.values()].filter((n) => n > 1).length;
        const ended = (type: string) =>
          expectedIds.filter((id) => findEvents(home, type, id).length > 0)
            .length;
        return {
          requests: expectedIds.length,
          detected: new Set(detections.map((e) => e.requestId)).size,
          delivered: ended('request.delivered'),
          expired: ended('request.expired'),
          unconfirmed: ended('delivery.unconfirmed'),
          restarts: all.filter((r) => r.extra).length,
          misrouted,
          doubled,
          lost,
          raisedTwice,
          strayInput: stray,
        };
      };
      await Promise.all(WORKERS.map(drive)).catch((error: unknown) => {
        // What the bridge and the event log said, to see why.
        const tail = findEvents(home, 'request.detected')
          .concat(findEvents(home, 'error'), findEvents(home, 'warning'))
          .map(
            (e) =>
              `${e.agent} ${e.type} ${e.requestId ?? ''} ${JSON.stringify(e.data ?? {})}`,
          )
          .slice(-40)
          .join('\n');
        console.log(`pane churn (failed): ${JSON.stringify(tally())}`);
        // The whole story of each program run that did not get its answers.
        const stuck = all
          .filter((run) => submits(run).length < run.answered)
          .map((run) => {
            const prefix = `${run.agent}-${run.name}-`;
            const lines = readAllEvents(home)
              .filter(
                (e) =>
                  e.agent === run.agent &&
                  (e.requestId === undefined || e.requestId.startsWith(prefix)),
              )
              .map((e) =>
                `  ${e.ts} ${e.type} ${e.requestId ?? ''} ${JSON.stringify(e.data ?? {})}`.slice(
                  0,
                  300,
                ),
              );
            return `${run.name} (${run.how}, ${submits(run).length}/${run.answered} answers):\n${lines.slice(-40).join('\n')}`;
          })
          .join('\n');
        throw new Error(
          `${String(error)}\n--- bridge ---\n${bridge.output().slice(-4000)}\n--- events ---\n${tail}\n--- stuck ---\n${stuck}`,
        );
      });
      if (!strayTried) await tryStray();

      // Every request detected reaches an end (archived).
      await waitFor(
        () =>
          expectedIds.every(
            (id) => findEvents(home, 'request.archived', id).length > 0,
          ),
        { timeout: 120_000, message: 'every request archived' },
      );

      const counts = tally();
      console.log(`pane churn: ${JSON.stringify(counts)}`);
      expect(counts).toMatchObject({
        requests: 60,
        detected: 60,
        misrouted: 0,
        doubled: 0,
        lost: 0,
        raisedTwice: 0,
        strayInput: 0,
      });
      // Every request was answered into its own program, or ended unanswered
      // because that program was gone.
      expect(
        counts.delivered + counts.expired + counts.unconfirmed,
      ).toBeGreaterThanOrEqual(60);
    },
  );
});
