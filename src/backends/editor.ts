/**
 * Running a person's editor (`$VISUAL`/`$EDITOR`) on a file, with this
 * terminal, for an answer written in the status view
 * (operations/answer-editor.ts). Synchronous on purpose: while the editor runs,
 * the status view neither reads keys nor draws.
 */
import { execaSync } from 'execa';

/** Runs the editor on a file with the terminal; resolves to its exit code. */
export type RunEditor = (argv: readonly string[]) => {
  exitCode: number | null;
  error?: string;
};

export const runEditorSync: RunEditor = (argv) => {
  const [command = 'vi', ...args] = argv;
  const result = execaSync(command, args, {
    stdio: 'inherit',
    reject: false,
    shell: false,
  });
  if (result.exitCode !== undefined) return { exitCode: result.exitCode };
  return {
    exitCode: null,
    error: result.shortMessage ?? result.message ?? 'the editor did not run',
  };
};
