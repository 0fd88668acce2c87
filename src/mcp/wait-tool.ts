/**
 * `wait_for_request` of `macs mcp`: block until a worker makes a new request
 * that waits for an answer. It reads nothing itself: it follows the home's
 * change feed (src/state/snapshot-feed.ts, the one the status view draws from),
 * shared by every wait of this server and stopped when none runs, and looks
 * at each new snapshot. A tool of its own because it is the one call that
 * lasts: it tells the client (with a progress token) that it is still
 * waiting, stops at the client's cancellation, and returns `request: null`
 * at its deadline so the controller can call again.
 */
import * as z from 'zod';
import type { RequestSnapshot } from '../state/snapshot-schema.js';
import { budgetNoticeOutput, createBudgetNotices } from './budget-notice.js';
import type { SnapshotFeed } from '../state/snapshot-feed.js';
import { Refusal } from '../operations/refusal.js';
import { requestDetail, requestText } from './tool-format.js';
import { agentName, type RegisterTool, type ToolContext } from './tool.js';

/**
 * `wait_for_request`: default and longest wait, in seconds. The default stays
 * under the 60 s many MCP clients allow a call before they give up on it.
 */
const WAIT_DEFAULT_SEC = 45;
const WAIT_MAX_SEC = 600;
/** How often a waiting `wait_for_request` sends progress (with a token). */
const WAIT_PROGRESS_MS = 10_000;
/** Most request ids a call may exclude (a hub's seen requests of one host). */
const WAIT_MAX_EXCLUDE = 2_000;

/** Register wait_for_request. */
export function registerWaitTool(
  tool: RegisterTool,
  context: ToolContext,
): void {
  const { snapshots } = context;
  // Budget pauses this server has told its controller of (docs/mcp.md).
  const findBudgetNotice = createBudgetNotices(context);

  tool(
    'wait_for_request',
    {
      title: 'Wait for a request',
      description: `Block until a worker makes a new request that waits for an answer (optionally of one agent or type), then return it in full, as get_request does. Returns with request null when none came within timeout_sec (default ${WAIT_DEFAULT_SEC}, at most ${WAIT_MAX_SEC}). With include_pending, a request already waiting returns at once. Also returns (request null, notice set) when an agent was paused by its budget, once per pause: answers to it wait until a person resumes it.`,
      inputSchema: {
        agent: agentName.optional(),
        type: z.string().max(64).optional(),
        timeout_sec: z.number().int().min(1).max(WAIT_MAX_SEC).optional(),
        include_pending: z
          .boolean()
          .optional()
          .describe(
            'also return a request that was already waiting when the call began',
          ),
        exclude: z
          .array(z.string().max(256))
          .max(WAIT_MAX_EXCLUDE)
          .optional()
          .describe('ids of requests not to return (already seen)'),
      },
    },
    async (args, extra) => {
      const { signal } = extra;
      const timeoutSec = args.timeout_sec ?? WAIT_DEFAULT_SEC;
      // With a progress token, the client hears that the wait goes on (at
      // once, then every WAIT_PROGRESS_MS), so a client that resets its
      // timeout on progress waits as long as asked.
      const token = extra._meta?.progressToken;
      let beats = 0;
      let nextBeat = 0;
      const beat = async () => {
        if (token === undefined || Date.now() < nextBeat) return;
        nextBeat = Date.now() + WAIT_PROGRESS_MS;
        beats += 1;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken: token,
              progress: beats,
              message: 'waiting for a request',
            },
          })
          .catch(() => undefined);
      };
      const excluded = new Set(args.exclude ?? []);
      const matches = (r: RequestSnapshot) =>
        r.waitingForPerson &&
        !excluded.has(r.id) &&
        (args.agent === undefined || r.agent === args.agent) &&
        (args.type === undefined || r.type === args.type);
      // A hub's hosts (docs/remote.md): their waiting requests, read over
      // the links when a host's own wait_for_request says one came (a long
      // call on each host's link: `remote.wake`), never on a timer.
      const remote = context.remote;
      const remoteWaiting = async () =>
        remote
          ? (await remote.requests()).requests.filter(
              (r) =>
                r.waitingForAnswer &&
                // A host that cannot be reached: shown, not new, not readable.
                r.hostDownSince === undefined &&
                (args.agent === undefined || r.agent === args.agent) &&
                (args.type === undefined || r.type === args.type),
            )
          : [];
      let remoteDue = true;
      let wake: Promise<void> | undefined;
      const stopWake = new AbortController();
      signal.addEventListener('abort', () => stopWake.abort(), { once: true });
      const lease = await snapshots.acquire();
      const { feed } = lease;
      try {
        const pending = () => feed.current()?.requests ?? [];
        const seen = new Set<string>();
        if (!args.include_pending) {
          for (const r of pending()) if (matches(r)) seen.add(r.id);
          for (const r of await remoteWaiting()) seen.add(r.id);
        }
        const deadline = Date.now() + timeoutSec * 1000;
        const about = args.agent ? { agent: args.agent } : {};
        for (;;) {
          if (signal.aborted)
            throw new Refusal('cancelled by the client', args.agent);
          await beat();
          const notice = await findBudgetNotice(feed.current(), args.agent);
          if (notice) return notice;
          // A host's agent paused by a budget (its own wait told the hub).
          const hostNotice = remote?.takeNotice(args.agent);
          if (hostNotice) return budgetNoticeOutput(hostNotice);
          const found = pending().find((r) => matches(r) && !seen.has(r.id));
          if (found)
            return {
              text: requestText(found),
              data: { request: requestDetail(found), timedOut: false },
              agent: found.agent,
              requestId: found.id,
            };
          if (remote && remoteDue) {
            remoteDue = false;
            const waiting = await remoteWaiting();
            const next = waiting.find((r) => !seen.has(r.id));
            const full =
              next && (await remote.forward('get_request', { id: next.id }));
            if (full)
              return {
                ...full,
                data: { ...full.data, timedOut: false },
              };
            // Waiting on each host: woken when one has a request not seen.
            wake ??= remote
              .wake(
                {
                  ...(args.agent ? { agent: args.agent } : {}),
                  ...(args.type ? { type: args.type } : {}),
                  exclude: [...seen, ...waiting.map((r) => r.id)],
                },
                stopWake.signal,
              )
              .then(() => {
                remoteDue = true;
                wake = undefined;
              });
          }
          const left = deadline - Date.now();
          if (left <= 0)
            return {
              text: `no new request within ${timeoutSec}s; call wait_for_request again to keep waiting`,
              data: { request: null, timedOut: true },
              ...about,
              event: { timedOut: true },
            };
          // Until the home changes, the next progress is due, the hosts are
          // read again, the deadline passes or the client cancels.
          const beatIn =
            token === undefined ? left : Math.max(0, nextBeat - Date.now());
          await nextSnapshot(feed, Math.min(left, beatIn), signal, wake);
        }
      } finally {
        stopWake.abort();
        lease.release();
      }
    },
  );
}

/**
 * Wait for the feed's next snapshot, at most `ms`, ending early (without
 * throwing) when the signal aborts or a host wakes the waiter.
 */
function nextSnapshot(
  feed: SnapshotFeed,
  ms: number,
  signal: AbortSignal,
  wake?: Promise<void>,
): Promise<void> {
  return new Promise((resolve) => {
    void wake?.then(() => done());
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const unsubscribe = feed.subscribe(done);
    signal.addEventListener('abort', done, { once: true });
    if (signal.aborted) done();
  });
}
