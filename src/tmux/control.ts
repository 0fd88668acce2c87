import { randomBytes } from 'node:crypto';
import type { ResultPromise } from 'execa';
import { formatControlCommand } from './control-command.js';
import { createBlockParser, type Block } from './control-protocol.js';
import { loadExeca, TMUX_UTF8_ARGS, type TmuxResult } from './run.js';

/**
 * One long-lived tmux control-mode client (`tmux -C`, see "CONTROL MODE" in
 * tmux(1)) that runs commands without starting a `tmux` process for each:
 * a command costs a line on a pipe instead of a fork and exec, which is most
 * of the time between a request and its answer being typed.
 *
 * Every command is followed by its own `display-message -p <nonce>` with a
 * fresh random nonce, and its reply is trusted only when the very next
 * output block holds exactly that nonce. A pane can print lines that look
 * like the protocol's `%end` (they come back through `capture-pane`), but it
 * cannot know the nonce: a forged end of block shows up as a reply that does
 * not line up, and the channel is dropped instead of being believed.
 */
export interface ControlChannel {
  /**
   * Run one command (arguments after the socket prefix). Resolves with what
   * tmux replied. Rejects with ControlUnavailableError when nothing was sent
   * (run the command another way), or ControlLostError when the command was
   * sent but its reply cannot be trusted or never came.
   */
  run(args: readonly string[]): Promise<TmuxResult>;
  /** Detach the control client; later runs reject with ControlUnavailableError. */
  close(): Promise<void>;
  /**
   * Call `listener` each time a connection is given up (the control client
   * exited, as it does at once when its server dies); returns the
   * unsubscribe. Not called for close().
   */
  onDrop(listener: (reason: string) => void): () => void;
}

/** Nothing was sent: the caller may run the command another way. */
export class ControlUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControlUnavailableError';
  }
}

/** The command was sent, but what it did is unknown. */
export class ControlLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControlLostError';
  }
}

export interface ControlChannelOptions {
  /** `tmux -L <socket>`; the default server when absent. */
  socket?: string;
  tmuxPath?: string;
  env?: NodeJS.ProcessEnv;
  /** A reply slower than this drops the channel (default 5 s). */
  replyTimeoutMs?: number;
  /** A client that has not attached within this is given up (default: replyTimeoutMs). */
  attachTimeoutMs?: number;
  /** After a failed connection, wait this long before trying again (default 1 s). */
  retryMs?: number;
  /** Told when a connection is given up (for the developer log). */
  onDrop?: (reason: string) => void;
}

interface Pending {
  nonce: string;
  first?: Block;
  resolve: (result: TmuxResult) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Commands written before their replies come back. tmux runs a control
 * client's commands one after another and answers them in order, so several
 * can be on the pipe at once: a fleet of agents starting does not wait for
 * each reply before sending the next command.
 */
const MAX_IN_FLIGHT = 32;

type Execa = Awaited<ReturnType<typeof loadExeca>>['execa'];

interface Connection {
  child: ResultPromise;
  ready: Promise<void>;
  closed: boolean;
}

/**
 * A control channel that connects on first use, keeps up to
 * MAX_IN_FLIGHT commands on the pipe (their replies matched in order, each
 * by its nonce), and reconnects after losing its client (the session it was
 * attached to ended, say). While it cannot connect it rejects with
 * ControlUnavailableError, so callers fall back to one process per command.
 */
export function createControlChannel(
  options: ControlChannelOptions = {},
): ControlChannel {
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const tmuxPath = options.tmuxPath ?? env.MACS_TMUX ?? 'tmux';
  const replyTimeoutMs = options.replyTimeoutMs ?? 5_000;
  const attachTimeoutMs = options.attachTimeoutMs ?? replyTimeoutMs;
  const retryMs = options.retryMs ?? 1_000;
  let connection: Connection | undefined;
  /** execa, loaded on the first connection. */
  let execa: Execa | undefined;
  let failedAt = -Infinity;
  /** Commands sent and not yet answered, in the order they were written. */
  const inFlight: Pending[] = [];
  /** Callers waiting for a free place among MAX_IN_FLIGHT. */
  const waitingTurn: (() => void)[] = [];
  let running = 0;
  let closed = false;
  const dropListeners = new Set<(reason: string) => void>(
    options.onDrop ? [options.onDrop] : [],
  );

  function drop(conn: Connection, reason: string): void {
    if (conn.closed) return;
    conn.closed = true;
    if (!closed) for (const listener of dropListeners) listener(reason);
    if (connection === conn) connection = undefined;
    conn.child.kill('SIGKILL');
    // Every command sent on this client: what it did is unknown.
    for (const waiting of inFlight.splice(0)) {
      clearTimeout(waiting.timer);
      waiting.reject(new ControlLostError(reason));
    }
  }

  function connect(execa: Execa): Connection {
    const args = [
      // UTF-8 whatever the caller's locale (TMUX_UTF8_ARGS, run.ts).
      ...TMUX_UTF8_ARGS,
      ...(options.socket ? ['-L', options.socket] : []),
      // Never start a server (tmux 3.2, as attach-session -f): one started
      // here would read the user's tmux.conf, which may create sessions
      // that keep it running on a socket no session of macs asked for.
      '-N',
      '-C',
      'attach-session',
      '-f',
      // Any session: commands name their panes, which may be in others.
      'no-output,ignore-size',
    ];
    const child = execa(tmuxPath, args, {
      env,
      extendEnv: false,
      reject: false,
      buffer: false,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'ignore',
      encoding: 'utf8',
    });
    let markReady!: () => void;
    let markFailed!: (error: Error) => void;
    const conn: Connection = {
      child,
      closed: false,
      ready: new Promise<void>((resolve, reject) => {
        markReady = resolve;
        markFailed = reject;
      }),
    };
    conn.ready.catch(() => undefined);
    // A client that never says it attached is given up like a lost reply.
    const attachTimer = setTimeout(() => {
      markFailed(
        new ControlUnavailableError('tmux control client did not attach'),
      );
      drop(conn, `no attach within ${attachTimeoutMs} ms`);
    }, attachTimeoutMs);
    void conn.ready.then(
      () => clearTimeout(attachTimer),
      () => clearTimeout(attachTimer),
    );
    let isReady = false;
    const parser = createBlockParser();
    let rest = '';

    const onLine = (line: string) => {
      const step = parser.push(line);
      if (step.exit) {
        markFailed(new ControlUnavailableError('tmux control client exited'));
        drop(conn, 'the tmux control client exited');
        return;
      }
      if (step.stray !== undefined) {
        drop(conn, 'tmux control mode output out of step');
        return;
      }
      if (!step.block) return;
      if (!isReady) {
        // The reply to attach-session itself comes first (or after commands
        // sent early, which we never do).
        isReady = true;
        if (step.block.ok) markReady();
        else {
          markFailed(
            new ControlUnavailableError(
              `tmux control client could not attach: ${step.block.lines.join(' ')}`,
            ),
          );
          drop(conn, 'attach failed');
        }
        return;
      }
      // Output of commands tmux runs itself (a hook of the user's) is not a reply.
      if (!step.block.fromClient) return;
      const waiting = inFlight[0];
      if (!waiting) {
        drop(conn, 'tmux control mode replied to nothing');
        return;
      }
      if (!waiting.first) {
        waiting.first = step.block;
        return;
      }
      const second = step.block;
      if (
        !second.ok ||
        second.lines.length !== 1 ||
        second.lines[0] !== waiting.nonce
      ) {
        drop(conn, 'tmux control mode reply out of step');
        return;
      }
      inFlight.shift();
      clearTimeout(waiting.timer);
      const { ok, lines } = waiting.first;
      const text = lines.map((l) => `${l}\n`).join('');
      waiting.resolve({
        exitCode: ok ? 0 : 1,
        stdout: ok ? text : '',
        stderr: ok ? '' : text,
      });
    };

    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      rest += chunk;
      let at = rest.indexOf('\n');
      while (at >= 0 && !conn.closed) {
        onLine(rest.slice(0, at));
        rest = rest.slice(at + 1);
        at = rest.indexOf('\n');
      }
    });
    child.stdin?.on('error', () => drop(conn, 'tmux control client stdin'));
    void child.then(() => {
      markFailed(new ControlUnavailableError('tmux control client ended'));
      drop(conn, 'the tmux control client ended');
    });
    return conn;
  }

  async function ready(): Promise<Connection> {
    if (closed) throw new ControlUnavailableError('control channel closed');
    if (!connection) {
      if (Date.now() - failedAt < retryMs)
        throw new ControlUnavailableError('tmux control client unavailable');
      execa ??= (await loadExeca()).execa;
      connection ??= connect(execa);
    }
    const conn = connection;
    try {
      await conn.ready;
    } catch (error) {
      failedAt = Date.now();
      throw error instanceof ControlUnavailableError
        ? error
        : new ControlUnavailableError(String(error));
    }
    if (conn.closed)
      throw new ControlUnavailableError('tmux control client gone');
    return conn;
  }

  async function runOne(args: readonly string[]): Promise<TmuxResult> {
    const line = formatControlCommand(args);
    const conn = await ready();
    const nonce = `macs-${randomBytes(12).toString('hex')}`;
    return new Promise<TmuxResult>((resolve, reject) => {
      // Lost while we waited our turn: nothing is sent.
      if (conn.closed) {
        reject(new ControlUnavailableError('tmux control client gone'));
        return;
      }
      const timer = setTimeout(
        () => drop(conn, `no reply from tmux within ${replyTimeoutMs} ms`),
        replyTimeoutMs,
      );
      // Queued and written together: replies come back in this order.
      inFlight.push({ nonce, resolve, reject, timer });
      conn.child.stdin?.write(`${line}\ndisplay-message -p ${nonce}\n`);
    });
  }

  /** Runs started and not settled (close waits for them). */
  const active = new Set<Promise<unknown>>();

  /** Run with at most MAX_IN_FLIGHT commands sent and unanswered. */
  function inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = (async () => {
      if (running >= MAX_IN_FLIGHT)
        await new Promise<void>((resolve) => waitingTurn.push(resolve));
      running += 1;
      try {
        return await work();
      } finally {
        running -= 1;
        waitingTurn.shift()?.();
      }
    })();
    active.add(run);
    void run.then(
      () => active.delete(run),
      () => active.delete(run),
    );
    return run;
  }

  return {
    run(args) {
      return inTurn(() => runOne(args));
    },
    onDrop(listener) {
      dropListeners.add(listener);
      return () => void dropListeners.delete(listener);
    },
    async close() {
      closed = true;
      const conn = connection;
      if (!conn) return;
      while (active.size > 0) await Promise.allSettled([...active]);
      conn.child.stdin?.end();
      const timer = setTimeout(() => drop(conn, 'closed'), 1_000);
      await conn.child.catch(() => undefined);
      clearTimeout(timer);
      conn.closed = true;
      connection = undefined;
    },
  };
}
