import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { envOverrides } from './env.js';
import type { PolicyConfig } from './policy-defaults.js';
import { PolicySchema } from './policy.js';
import { ConfigSchema, type MacsConfig } from './schema.js';
import type * as z from 'zod/mini';

export const CONFIG_FILE_NAME = 'macs.config.json';
const MAX_ISSUES = 5;

export interface LoadConfigOptions {
  /** An explicit config path (`--config`); it must exist. */
  path?: string;
  /** Home folder: `<home>/macs.config.json` is read when it exists. */
  home: string;
  env?: NodeJS.ProcessEnv;
  /** Values from command-line flags (already typed); they win over env and file. */
  flags?: Partial<MacsConfig>;
  /**
   * How the file is read (default: from disk). `macs hook` passes the text
   * it keyed its cache on, so that what it caches is what it keyed.
   */
  readFile?: (file: string) => Promise<string>;
  /**
   * On a host whose session a hub started: the hub's policy file and its
   * text (home/hub-policy.ts), which takes the place of the config's own
   * `policy`. The CLI's context and `macs hook` read it and pass it here.
   */
  hubPolicy?: { file: string; text: string } | undefined;
}

export interface LoadedConfig {
  config: MacsConfig;
  /** The file read, if any. */
  file: string | undefined;
  /** The policy is a hub's (home/hub-policy.ts), not the file's. */
  hubPolicy?: boolean;
}

function describeReceived(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  return typeof input;
}

/** One readable line per zod issue: `key.path: expected X, received Y`. */
export function formatConfigIssues(
  error: z.core.$ZodError,
  input: unknown,
): string[] {
  return error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const where = issue.path.length
      ? issue.path.map(String).join('.')
      : '(top level)';
    let received: unknown = input;
    for (const key of issue.path) {
      received =
        received !== null && typeof received === 'object'
          ? (received as Record<PropertyKey, unknown>)[key]
          : undefined;
    }
    if (issue.code === 'unrecognized_keys') {
      const prefix = issue.path.length ? `${where}: ` : '';
      return `${prefix}unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    }
    if (issue.code === 'invalid_type') {
      return `${where}: expected ${issue.expected}, received ${describeReceived(received)}`;
    }
    return `${where}: ${issue.message} (received ${JSON.stringify(received)})`;
  });
}

/** The policy a hub's text holds, checked as a config's `policy` is. */
function parseHubPolicy(text: string, where: string): PolicyConfig {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    throw new ConfigError(`${where}: the hub's policy is not JSON`);
  }
  const parsed = PolicySchema.safeParse(input);
  if (!parsed.success)
    throw new ConfigError(
      `${where}: the hub's policy is not valid:\n  ${formatConfigIssues(parsed.error, input).join('\n  ')}`,
      { hint: 'check "policy" in the hub\'s macs.config.json' },
    );
  return parsed.data;
}

/**
 * Load and validate the config: file < env < flags, then one `safeParse`.
 * A bad file is a ConfigError (exit 2) naming the file, the key and what
 * was expected; nothing falls back silently. On a host whose session a hub
 * started, the hub's policy takes the place of the file's.
 */
export async function loadConfig(
  options: LoadConfigOptions,
): Promise<LoadedConfig> {
  const explicit = options.path !== undefined;
  const file = path.resolve(options.home, options.path ?? CONFIG_FILE_NAME);
  let fileValue: unknown = {};
  let readFrom: string | undefined;
  let text: string | undefined;
  try {
    text = await (options.readFile ?? ((f) => readFile(f, 'utf8')))(file);
  } catch (error) {
    if (explicit) {
      throw new ConfigError(
        `cannot read config file ${file}: ${(error as Error).message}`,
        {
          hint: 'check the --config path',
        },
      );
    }
  }
  if (text !== undefined) {
    readFrom = file;
    try {
      fileValue = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(
        `${file}: not valid JSON (${(error as Error).message})`,
        {
          hint: 'fix the JSON syntax, or move the file away to use the defaults',
        },
      );
    }
    if (
      fileValue === null ||
      typeof fileValue !== 'object' ||
      Array.isArray(fileValue)
    ) {
      throw new ConfigError(`${file}: expected a JSON object at the top level`);
    }
  }
  const flags = Object.fromEntries(
    Object.entries(options.flags ?? {}).filter(([, v]) => v !== undefined),
  );
  const merged = {
    ...(fileValue as Record<string, unknown>),
    ...envOverrides(options.env ?? {}),
    ...flags,
  };
  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const source = readFrom ?? 'configuration (flags and MACS_* environment)';
    const lines = formatConfigIssues(parsed.error, merged);
    const more =
      parsed.error.issues.length > MAX_ISSUES
        ? `\n  (and ${parsed.error.issues.length - MAX_ISSUES} more)`
        : '';
    throw new ConfigError(
      `invalid config in ${source}:\n  ${lines.join('\n  ')}${more}`,
      {
        hint: 'see docs/config.md for every key and its type',
      },
    );
  }
  const hub = options.hubPolicy;
  if (!hub) return { config: parsed.data, file: readFrom };
  return {
    config: { ...parsed.data, policy: parseHubPolicy(hub.text, hub.file) },
    file: readFrom,
    hubPolicy: true,
  };
}
