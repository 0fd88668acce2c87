import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { errorMessage } from '../errors.js';
import { createRequestEmitter, type EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import { formatExecInput } from '../protocol/context-packet.js';
import { pickExecAnswer } from '../protocol/envelope.js';
import { FILE_MODE } from '../home/fs.js';
import { makeRunDir, sweepRunDirs } from './exec-dirs.js';
import { substituteExecArgv } from './exec-presets.js';
import { createPriorityQueue } from './queue.js';
import type { AttemptBackend, AttemptResult, BackendRequest } from './types.js';

/** How one run of a command ended. Failures are values, never throws. */
export interface ExecRunResult {
  exitCode: number | undefined;
  signal: string | undefined;
  timedOut: boolean;
  /** Stopped because the bridge is stopping. */
  aborted: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** The command could not be started (not found, not executable...). */
  spawnError?: string;
  /** Output beyond MAX_EXEC_OUTPUT_BYTES. */
  outputTooLarge: boolean;
}

export interface ExecRunOptions {
  /** Written to stdin, then stdin is closed ('' closes it at once). */
  input: string;
  timeoutMs: number;
  cwd: string;
  env?: Record<string, string>;
  signal?: AbortSignal;
}

/** The process boundary: run argv (never through a shell). */
export type RunExec = (
  argv: readonly string[],
  options: ExecRunOptions,
) => Promise<ExecRunResult>;

/** stdout or stderr beyond this is an error, not an answer. */
export const MAX_EXEC_OUTPUT_BYTES = 16 * 1024 * 1024;
/** After SIGTERM, a command that is still there gets SIGKILL this much later. */
export const EXEC_KILL_GRACE_MS = 1000;
/** Commands run at once; the rest wait, high priority first. */
export const EXEC_MAX_PARALLEL = 4;
/** How much of stderr an event keeps. */
const STDERR_EVENT_CHARS = 2000;

/**
 * Run a command with execa: `shell: false`, expected failures as values
 * (`reject: false`). It runs in its own process group (`detached`), so a
 * timeout or a stop ends the command and everything it started: SIGTERM to
 * the group, then SIGKILL after EXEC_KILL_GRACE_MS.
 */
export const runExecCommand: RunExec = async (argv, options) => {
  const [file, ...args] = argv;
  const started = Date.now();
  if (file === undefined || file === '') {
    return {
      exitCode: undefined,
      signal: undefined,
      timedOut: false,
      aborted: false,
      stdout: '',
      stderr: '',
      durationMs: 0,
      spawnError: 'empty command',
      outputTooLarge: false,
    };
  }
  const child = execa(file, args, {
    shell: false,
    reject: false,
    input: options.input,
    cwd: options.cwd,
    env: options.env ?? {},
    extendEnv: true,
    detached: true,
    stripFinalNewline: false,
    encoding: 'utf8',
    maxBuffer: MAX_EXEC_OUTPUT_BYTES,
    windowsHide: true,
  });
  let timedOut = false;
  let aborted = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const terminate = () => {
    killGroup('SIGTERM');
    graceTimer ??= setTimeout(() => killGroup('SIGKILL'), EXEC_KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    terminate();
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    terminate();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const result = await child;
  clearTimeout(timer);
  if (graceTimer) clearTimeout(graceTimer);
  options.signal?.removeEventListener('abort', onAbort);
  const code = (result as { code?: unknown }).code;
  const spawned = child.pid !== undefined;
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut,
    aborted,
    stdout: typeof result.stdout === 'string' ? result.stdout : '',
    stderr: typeof result.stderr === 'string' ? result.stderr : '',
    durationMs: Date.now() - started,
    ...(!spawned || (result.exitCode === undefined && code !== undefined)
      ? {
          spawnError:
            (result as { originalMessage?: string }).originalMessage ??
            result.shortMessage ??
            String(code),
        }
      : {}),
    outputTooLarge: result.isMaxBuffer,
  };
};

export interface ExecBackendOptions {
  argv: readonly string[];
  timeoutMs: number;
  /** The controller prompt put before the packet, if any. */
  prompt?: string;
  /** Where commands run when the worker's folder is unknown. */
  home: string;
  /**
   * Where each run's private folder is made (`.macs/exec/`); folders left
   * there by a bridge that is gone are removed before the first run.
   */
  runDir: string;
  events: EventSink;
  log: Logger;
  run?: RunExec;
  maxParallel?: number;
}

async function isDirectory(dir: string | undefined): Promise<boolean> {
  if (!dir) return false;
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

function tail(text: string, chars: number): string {
  return text.length > chars ? `…${text.slice(-chars)}` : text;
}

/**
 * The exec backend (SPEC §3): one command per request, with the context
 * packet on stdin or in `{promptFile}`; its output is the answer. A non-zero
 * exit, a timeout, a command that cannot start, or blank output is a
 * failure, which the dispatcher sends on to the fallback. Every run is
 * recorded (`exec.started`, `exec.finished` with exit status and stderr).
 */
export function createExecBackend(options: ExecBackendOptions): AttemptBackend {
  const run = options.run ?? runExecCommand;
  const queue = createPriorityQueue(options.maxParallel ?? EXEC_MAX_PARALLEL);
  const stopping = new AbortController();
  const command = options.argv[0] ?? '';

  const emit = createRequestEmitter(options.events, options.log);
  const swept = sweepRunDirs(options.runDir).then(
    (names) => {
      if (names.length > 0)
        options.log.info(
          { removed: names },
          'removed exec folders of bridges that are gone',
        );
    },
    (error: unknown) =>
      options.log.warn(
        { error: errorMessage(error) },
        'could not remove old exec folders',
      ),
  );

  async function attemptNow(request: BackendRequest): Promise<AttemptResult> {
    if (stopping.signal.aborted) return { type: 'aborted' };
    if (!request.context) {
      return { type: 'failed', reason: 'no-context' };
    }
    await swept;
    const dir = await makeRunDir(options.runDir);
    try {
      const promptFile = path.join(dir, 'request.txt');
      const outputFile = path.join(dir, 'answer.txt');
      const input = formatExecInput(request.context, options.prompt);
      const { argv, usesPromptFile, usesOutputFile } = substituteExecArgv(
        options.argv,
        {
          promptFile,
          outputFile,
          id: request.id,
          agent: request.agent,
          type: request.type,
        },
      );
      if (usesPromptFile)
        await writeFile(promptFile, input, { mode: FILE_MODE, flag: 'wx' });
      const cwd = (await isDirectory(request.context.cwd))
        ? (request.context.cwd ?? options.home)
        : options.home;
      await emit(request, 'exec.started', {
        command,
        args: argv.length - 1,
        input: usesPromptFile ? 'promptFile' : 'stdin',
        chars: input.length,
        cwd,
      });
      const result = await run(argv, {
        input: usesPromptFile ? '' : input,
        timeoutMs: options.timeoutMs,
        cwd,
        env: {
          MACS_REQUEST_ID: request.id,
          MACS_AGENT: request.agent,
          MACS_REQUEST_TYPE: request.type,
        },
        signal: stopping.signal,
      });
      let output = result.stdout;
      let outputFrom = 'stdout';
      if (usesOutputFile) {
        const written = await readFile(outputFile, 'utf8').catch(() => '');
        if (written.trim()) {
          output = written;
          outputFrom = 'outputFile';
        }
      }
      await emit(request, 'exec.finished', {
        command,
        exitCode: result.exitCode ?? null,
        signal: result.signal ?? null,
        timedOut: result.timedOut,
        durationMs: result.durationMs,
        stdoutChars: result.stdout.length,
        ...(usesOutputFile ? { outputFrom } : {}),
        ...(result.stderr
          ? { stderr: tail(result.stderr, STDERR_EVENT_CHARS) }
          : {}),
        ...(result.spawnError ? { spawnError: result.spawnError } : {}),
      });
      options.log.info(
        {
          requestId: request.id,
          exitCode: result.exitCode,
          timedOut: result.timedOut,
          durationMs: result.durationMs,
        },
        'exec finished',
      );
      if (result.aborted) return { type: 'aborted' };
      const detail = {
        command,
        exitCode: result.exitCode ?? null,
        signal: result.signal ?? null,
        timedOut: result.timedOut,
        durationMs: result.durationMs,
        ...(result.stderr
          ? { stderr: tail(result.stderr, STDERR_EVENT_CHARS) }
          : {}),
      };
      if (result.spawnError !== undefined) {
        return {
          type: 'failed',
          reason: 'spawn-error',
          detail: { ...detail, error: result.spawnError },
        };
      }
      if (result.timedOut) return { type: 'failed', reason: 'timeout', detail };
      if (result.outputTooLarge)
        return { type: 'failed', reason: 'output-too-large', detail };
      if (result.exitCode !== 0)
        return { type: 'failed', reason: 'exit-status', detail };
      const answer = pickExecAnswer(output, request.id);
      if (!answer) return { type: 'failed', reason: 'empty-output', detail };
      if (answer.otherId !== undefined) {
        await emit(request, 'warning', {
          message: `the exec answer's block has id ${answer.otherId}; taken as the answer to ${request.id}`,
        });
      }
      return {
        type: 'answered',
        text: answer.text,
        source: `exec:${path.basename(command)}`,
      };
    } catch (error) {
      return {
        type: 'failed',
        reason: 'error',
        detail: { command, error: errorMessage(error) },
      };
    } finally {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  return {
    name: 'exec',
    attempt(request) {
      return queue.run(
        request.priority,
        () => attemptNow(request),
        request.agent,
      );
    },
    stop() {
      stopping.abort();
      return Promise.resolve();
    },
  };
}
