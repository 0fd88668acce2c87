/**
 * The MacsError family. Every expected failure that ends a command is one of
 * these; `main.ts` prints `macs: <message>` and `hint: <hint>` and exits with
 * `exitCode` (SPEC §5: 1 failure, 2 usage/config, 3 tmux, 130 interrupted).
 */
export class MacsError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(
    message: string,
    options: { exitCode?: number; hint?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'MacsError';
    this.exitCode = options.exitCode ?? 1;
    this.hint = options.hint;
  }
}

/** Bad usage or a bad config file: exit 2. */
export class ConfigError extends MacsError {
  constructor(
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, { ...options, exitCode: 2 });
    this.name = 'ConfigError';
  }
}

/** tmux missing or unreachable: exit 3. Keeps the argv and stderr. */
export class TmuxError extends MacsError {
  readonly args: readonly string[];
  readonly stderr: string;

  constructor(
    message: string,
    options: {
      hint?: string;
      cause?: unknown;
      args?: readonly string[];
      stderr?: string;
    } = {},
  ) {
    super(message, { hint: options.hint, cause: options.cause, exitCode: 3 });
    this.name = 'TmuxError';
    this.args = options.args ?? [];
    this.stderr = options.stderr ?? '';
  }
}

/** Something about an agent (unknown name, dead pane, ambiguous pane): exit 1. */
export class AgentError extends MacsError {
  constructor(
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, { ...options, exitCode: 1 });
    this.name = 'AgentError';
  }
}

/** Exhaustiveness guard for `switch` over a union's `type`. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error and what to do, in one line: `message (hint: …)`. */
export function withHint(error: {
  message: string;
  hint?: string | undefined;
}): string {
  return error.hint ? `${error.message} (hint: ${error.hint})` : error.message;
}

/** The message of anything thrown, with a MacsError's hint: `message (hint: …)`. */
export function errorWithHint(error: unknown): string {
  return error instanceof MacsError ? withHint(error) : errorMessage(error);
}
