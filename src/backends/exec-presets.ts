/**
 * Ready-made exec commands and how the exec argv is chosen. Pure.
 *
 * The flags are documented in docs/backends.md, with where each fact comes
 * from. Placeholders: `{promptFile}` (a private temp file holding the packet;
 * stdin is then empty), `{outputFile}` (a path in the same private folder;
 * when the command wrote it, its content is the answer), `{id}`, `{agent}`,
 * `{type}`.
 */
import { ConfigError } from '../errors.js';
import type { MacsConfig } from '../config/schema.js';

export type ExecPresetName = NonNullable<MacsConfig['execPreset']>;

export const EXEC_PRESETS: Readonly<Record<ExecPresetName, readonly string[]>> =
  Object.freeze({
    // Codex CLI `codex exec`: prompt read from stdin with `-`, read-only
    // sandbox, the final message also written to {outputFile}.
    codex: [
      'codex',
      'exec',
      '--sandbox',
      'read-only',
      '--skip-git-repo-check',
      '--color',
      'never',
      '--output-last-message',
      '{outputFile}',
      '-',
    ],
    // Claude Code print mode: the prompt is read from stdin, plain text out,
    // plan mode (read-only: no edits, no commands).
    claude: [
      'claude',
      '-p',
      '--output-format',
      'text',
      '--permission-mode',
      'plan',
    ],
    // Gemini CLI: `-p` text is appended to the input read from stdin.
    gemini: [
      'gemini',
      '-p',
      'Answer the macs request above with one CONTROLLER_RESPONSE block.',
    ],
  });

export function isExecPresetName(name: string): name is ExecPresetName {
  return Object.hasOwn(EXEC_PRESETS, name);
}

/**
 * `--exec` values as argv: each value is one argument, except that a value
 * holding a JSON array of strings (`'["codex","exec","-"]'`, also the form
 * `MACS_EXEC` takes) stands for all of its elements. Nothing is split on
 * spaces and no shell is involved.
 */
export function parseExecValues(values: readonly string[]): string[] {
  const [only] = values;
  if (values.length === 1 && only !== undefined && /\s/.test(only.trim())) {
    if (!only.trimStart().startsWith('[')) {
      // `--exec "claude -p"` would look for a program named `claude -p`.
      throw new ConfigError(
        `--exec '${only}' is one argument (a program named '${only}'); give one --exec per argument`,
        {
          hint: `e.g. --exec ${only.trim().split(/\s+/).join(' --exec ')}, or a JSON array: --exec '${JSON.stringify(only.trim().split(/\s+/))}'`,
        },
      );
    }
  }
  const argv: string[] = [];
  for (const value of values) {
    if (value.trimStart().startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = undefined;
      }
      if (
        Array.isArray(parsed) &&
        parsed.every((item): item is string => typeof item === 'string')
      ) {
        argv.push(...parsed);
        continue;
      }
    }
    argv.push(value);
  }
  return argv;
}

export interface ExecChoice {
  argv: string[];
  /** Where it came from, for the start-up message. */
  from: string;
}

/**
 * The exec command: `--exec`, else `--exec-preset`, else the config's
 * `exec`, else its `execPreset`. Undefined when none is given.
 */
export function resolveExecArgv(input: {
  flagExec?: readonly string[];
  flagPreset?: string;
  config: Pick<MacsConfig, 'exec' | 'execPreset'>;
}): ExecChoice | undefined {
  const fromFlag = parseExecValues(input.flagExec ?? []);
  if (fromFlag.length > 0) return { argv: fromFlag, from: '--exec' };
  if (input.flagPreset !== undefined) {
    if (!isExecPresetName(input.flagPreset)) {
      throw new ConfigError(`unknown exec preset '${input.flagPreset}'`, {
        hint: `known exec presets: ${Object.keys(EXEC_PRESETS).join(', ')}`,
      });
    }
    return {
      argv: [...EXEC_PRESETS[input.flagPreset]],
      from: `--exec-preset ${input.flagPreset}`,
    };
  }
  if (input.config.exec) return { argv: [...input.config.exec], from: 'exec' };
  if (input.config.execPreset) {
    return {
      argv: [...EXEC_PRESETS[input.config.execPreset]],
      from: `execPreset ${input.config.execPreset}`,
    };
  }
  return undefined;
}

export interface ExecPlaceholders {
  promptFile: string;
  outputFile: string;
  id: string;
  agent: string;
  type: string;
}

const PLACEHOLDER = /\{(promptFile|outputFile|id|agent|type)\}/g;

/** Replace placeholders inside each argument; says which files are used. */
export function substituteExecArgv(
  argv: readonly string[],
  values: ExecPlaceholders,
): { argv: string[]; usesPromptFile: boolean; usesOutputFile: boolean } {
  let usesPromptFile = false;
  let usesOutputFile = false;
  const out = argv.map((arg) =>
    arg.replace(PLACEHOLDER, (_, name: keyof ExecPlaceholders) => {
      if (name === 'promptFile') usesPromptFile = true;
      if (name === 'outputFile') usesOutputFile = true;
      return values[name];
    }),
  );
  return { argv: out, usesPromptFile, usesOutputFile };
}
