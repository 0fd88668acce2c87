import type { RunExec } from '../../backends/exec.js';
import type { MacsConfig } from '../../config/schema.js';
import { errorMessage } from '../../errors.js';
import { emitSafely, type EventSink } from '../../events/log.js';
import type { MacsEvent } from '../../events/types.js';
import type { Logger } from '../../log/logger.js';
import { claimAttention } from '../../state/person-controls.js';
import type { HomePaths } from '../../home/paths.js';
import { createSerialQueue } from '../../state/serial.js';
import type { TmuxClient } from '../../tmux/client.js';
import { showMessageNearPanes } from '../../tmux/clients.js';

/**
 * Calling a person (SPEC §5 "a person is told whenever they are needed").
 * The bridge raises `attention` when a request starts waiting for a person
 * (routed to the file backend first, or fallen back to it) and when an
 * agent turns `approval`, `error` or `dead`, a request is refused for its
 * size (`request.malformed` with `refused`), a block's end marker does not
 * come (`request.incomplete`), or a worker asks again under a
 * finished request (`request.duplicate` with `unanswered`); once per request (a marker in
 * `.macs/attention/` survives restarts) or per state change. Each shows a
 * tmux message to the clients of the agent's session, runs the configured
 * `notify` command with the event as JSON on stdin (argv, no shell,
 * bounded in time), and leaves an `attention` event, which the status view
 * shows as "needs you" and rings the terminal bell for.
 */

/** The states a person is called for. */
export const ATTENTION_STATES: ReadonlySet<string> = new Set([
  'approval',
  'error',
  'dead',
]);

export interface AttentionInput {
  agent: string;
  /** Why: `waiting-for-person`, a loop guard's reason, or the agent's state. */
  reason: string;
  requestId?: string;
  /** One line for people (tmux message, notify). */
  message: string;
  /** The agent's pane, to reach the clients of its session. */
  pane?: string;
  data?: Record<string, unknown>;
}

export interface Attention {
  /** Call a person about a request that now waits for one (once per request). */
  request(input: AttentionInput & { requestId: string }): Promise<void>;
  /**
   * Call a person about something that is not a request (a budget,
   * docs/usage.md); the caller makes sure it happens once.
   */
  notice(input: AttentionInput): Promise<void>;
  /** Look at an event: an agent that turned approval/error/dead calls a person. */
  observe(event: MacsEvent): void;
  /** Wait for the calls under way (the bridge is stopping). */
  flush(): Promise<void>;
}

export interface AttentionOptions {
  paths: HomePaths;
  config: MacsConfig['attention'];
  events: EventSink;
  log: Logger;
  /** To show tmux messages; absent: none. */
  tmux?: TmuxClient;
  /** Runs the notify command (backends/exec.ts); absent: none. */
  runExec?: RunExec;
}

/** How much of a notify command's stderr an event keeps. */
const NOTIFY_STDERR_CHARS = 500;

export function createAttention(options: AttentionOptions): Attention {
  const { paths, config, events, log } = options;
  const serial = createSerialQueue();
  const pending = new Set<Promise<void>>();

  async function call(input: AttentionInput): Promise<void> {
    const at = new Date().toISOString();
    let tmuxClients = 0;
    if (config.tmuxMessage && options.tmux && input.pane) {
      tmuxClients = await showMessageNearPanes(
        options.tmux,
        [input.pane],
        `macs: ${input.message}`.slice(0, 160),
      ).catch((error: unknown) => {
        log.warn({ err: error }, 'attention message failed');
        return 0;
      });
    }
    const notified = await runNotify(input, at);
    await emitSafely(events, log, {
      agent: input.agent,
      type: 'attention',
      ...(input.requestId ? { requestId: input.requestId } : {}),
      data: {
        ...input.data,
        reason: input.reason,
        message: input.message,
        bell: config.bell,
        tmuxClients,
        ...(notified ? { notify: notified } : {}),
      },
    });
  }

  /** The notify command, once, with the call as JSON on stdin. */
  async function runNotify(
    input: AttentionInput,
    at: string,
  ): Promise<Record<string, unknown> | undefined> {
    const argv = config.notify;
    if (!argv || !options.runExec) return undefined;
    const payload = {
      type: 'attention',
      ts: at,
      home: paths.home,
      agent: input.agent,
      reason: input.reason,
      message: input.message,
      ...(input.requestId ? { requestId: input.requestId } : {}),
      ...(input.data ? { data: input.data } : {}),
    };
    const result = await options.runExec(argv, {
      input: `${JSON.stringify(payload)}\n`,
      timeoutMs: config.notifyTimeoutSec * 1000,
      cwd: paths.home,
    });
    const ok = result.exitCode === 0 && !result.timedOut && !result.spawnError;
    if (!ok)
      log.warn(
        { exitCode: result.exitCode, timedOut: result.timedOut },
        'notify command failed',
      );
    return {
      ok,
      ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
      ...(result.timedOut ? { timedOut: true } : {}),
      ...(result.spawnError ? { error: result.spawnError } : {}),
      ...(!ok && result.stderr
        ? { stderr: result.stderr.slice(0, NOTIFY_STDERR_CHARS) }
        : {}),
    };
  }

  function track(task: Promise<void>): void {
    const guarded = task.catch((error: unknown) =>
      log.warn({ err: errorMessage(error) }, 'attention failed'),
    );
    pending.add(guarded);
    void guarded.finally(() => pending.delete(guarded));
  }

  return {
    request(input) {
      const task = serial(async () => {
        // Once per request, across restarts and bridges.
        if (!(await claimAttention(paths, input.requestId))) return;
        await call(input);
      });
      track(task);
      return task.catch(() => undefined);
    },
    notice(input) {
      const task = serial(() => call(input));
      track(task);
      return task.catch(() => undefined);
    },
    observe(event) {
      if (event.type === 'request.limited') {
        // A flooding agent: once per burst (the bridge says it once).
        const message = event.data?.message;
        track(
          serial(() =>
            call({
              agent: event.agent,
              reason: 'limited',
              message:
                typeof message === 'string'
                  ? message
                  : `${event.agent} asks too much at once`,
              data: { ...event.data, limited: event.data?.reason },
            }),
          ),
        );
        return;
      }
      if (event.type === 'request.malformed' && event.data?.refused === true) {
        // A request refused for its size: the worker waits for nothing.
        const message = event.data.message;
        const pane = event.data.pane;
        track(
          serial(() =>
            call({
              agent: event.agent,
              reason: 'refused',
              message:
                typeof message === 'string'
                  ? message
                  : `${event.agent}'s request was refused`,
              ...(typeof pane === 'string' ? { pane } : {}),
              data: {
                refused: event.data?.reason,
                firstLine: event.data?.firstLine,
              },
            }),
          ),
        );
        return;
      }
      if (event.type === 'request.incomplete') {
        // A block without its end marker (intake/incomplete-watch.ts): the worker
        // may wait for an answer to a request nobody can see. The bridge
        // records it once per block.
        const message = event.data?.message;
        const pane = event.data?.pane;
        track(
          serial(() =>
            call({
              agent: event.agent,
              reason: 'incomplete',
              message:
                typeof message === 'string'
                  ? message
                  : `${event.agent} printed a request without its end marker`,
              ...(typeof pane === 'string' ? { pane } : {}),
              data: {
                incomplete: event.data?.reason,
                firstLine: event.data?.firstLine,
              },
            }),
          ),
        );
        return;
      }
      if (
        event.type === 'request.duplicate' &&
        event.data?.unanswered === true &&
        event.requestId !== undefined
      ) {
        // Asked again under a finished request (requests/block-request.ts): the worker
        // waits for an answer that will not come. Once an hour per id (the
        // marker is pruned an hour after, as a closed request's is).
        const { requestId } = event;
        const message = event.data.message;
        const pane = event.data.pane;
        track(
          serial(async () => {
            if (!(await claimAttention(paths, `${requestId}.again`))) return;
            await call({
              agent: event.agent,
              reason: 'asked-again',
              requestId,
              message:
                typeof message === 'string'
                  ? message
                  : `${event.agent} asked again under a finished request`,
              ...(typeof pane === 'string' ? { pane } : {}),
              data: {
                duplicate: event.data?.reason,
                ...(typeof event.data?.earlier === 'string'
                  ? { earlier: event.data.earlier }
                  : {}),
              },
            });
          }),
        );
        return;
      }
      if (event.type !== 'state.changed') return;
      const to = event.data?.to;
      if (typeof to !== 'string' || !ATTENTION_STATES.has(to)) return;
      const from = event.data?.from;
      // A state change is its own event: it happens once.
      const pane =
        typeof event.data?.pane === 'string' ? event.data.pane : undefined;
      track(
        serial(() =>
          call({
            agent: event.agent,
            reason: to,
            message: describeState(event.agent, to, event.data),
            ...(pane ? { pane } : {}),
            data: {
              state: to,
              ...(typeof from === 'string' ? { from } : {}),
            },
          }),
        ),
      );
    },
    async flush() {
      await Promise.allSettled([...pending]);
    },
  };
}

/** One line about an agent that needs a person. */
function describeState(
  agent: string,
  state: string,
  data: Record<string, unknown> | undefined,
): string {
  switch (state) {
    case 'approval':
      return `${agent} waits on a permission prompt`;
    case 'error':
      return `${agent} shows an error`;
    case 'dead': {
      const code = data?.exitCode;
      return `${agent} ended${typeof code === 'number' ? ` (exit status ${code})` : ''}`;
    }
    default:
      return `${agent} is ${state}`;
  }
}
