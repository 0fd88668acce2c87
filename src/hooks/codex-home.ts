/**
 * The Codex home macs gives each Codex agent it starts (issue 17, item 9).
 *
 * Codex reads its settings from `$CODEX_HOME/config.toml` (default
 * `~/.codex`). Settings given on the command line (`-c notify=…`) make
 * Codex 0.169 run "without the shared background server" in embedded mode,
 * with a warning at every start; settings in config.toml do not. So macs
 * starts Codex with `CODEX_HOME=.macs/codex/<agent>`, whose config.toml is
 * the user's own config.toml with macs's `notify` program, written anew at
 * every start (the user's later changes come along). The user's sign-in
 * (`auth.json`) and global instructions are linked, not copied. Codex keeps
 * that agent's sessions, logs and its background server's files there.
 *
 * Codex's lifecycle hooks (codex-hooks.ts) go in that home's `hooks.json`,
 * a file macs owns (the user's is not linked). Codex 0.169 runs a hook of
 * the user's config layer only once it is trusted: `[hooks.state."<key>"]
 * trusted_hash = "sha256:…"` in config.toml, where the key names the file,
 * the event and the hook's place in it, and the hash is Codex's hash of the
 * hook's definition (`codexHookHash`). macs writes that entry for its own
 * hooks only; a hook of the user's stays as Codex's trust review left it.
 *
 * Pure, except `readCodexSource` and `linkCodexHome`.
 */
import { createHash } from 'node:crypto';
import { lstat, readFile, readlink, rm, symlink } from 'node:fs/promises';
import path from 'node:path';

/** Files of the user's Codex home an agent's Codex home links to. */
export const CODEX_LINKED_FILES = ['auth.json', 'AGENTS.md', 'prompts'];

/** `.macs/codex/<agent>`: the CODEX_HOME of an agent macs starts. */
export function agentCodexHome(runtimeDir: string, agent: string): string {
  return path.join(runtimeDir, 'codex', agent);
}

/** The Codex home a user's Codex uses: `$CODEX_HOME`, else `~/.codex`. */
export function userCodexHome(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
): string {
  return env.CODEX_HOME && path.isAbsolute(env.CODEX_HOME)
    ? env.CODEX_HOME
    : path.join(homeDir, '.codex');
}

/** Remove string literals from a TOML line, so brackets in them do not count. */
function withoutStrings(line: string): string {
  return line
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/'[^']*'/g, "''")
    .replace(/#.*$/, '');
}

function bracketDepth(line: string): number {
  const bare = withoutStrings(line);
  return (bare.match(/\[/g)?.length ?? 0) - (bare.match(/\]/g)?.length ?? 0);
}

/** TOML array of basic strings (JSON string escapes are valid TOML ones). */
export function tomlStringArray(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
}

/** One command hook of a Codex hooks file, as Codex reads it. */
export interface CodexCommandHook {
  type: 'command';
  command: string;
  /** Seconds. */
  timeout: number;
}

/** A Codex `hooks.json`: per event, matcher groups of hooks. */
export interface CodexHooksFile {
  hooks: Record<string, { matcher?: string; hooks: CodexCommandHook[] }[]>;
}

/** A trust entry for config.toml: `[hooks.state."<key>"] trusted_hash`. */
export interface CodexHookTrust {
  key: string;
  hash: string;
}

/** Codex's label of an event in trust keys: `PreCompact` → `pre_compact`. */
export function codexEventLabel(event: string): string {
  return event.replace(/(?<=[a-z])([A-Z])/g, '_$1').toLowerCase();
}

/** JSON with every object's keys sorted, as Codex hashes a value. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map(
        (key) =>
          `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
      )
      .join(',')}}`;
  return JSON.stringify(value);
}

/**
 * Codex 0.169's hash of one command hook (`currentHash` in its hook list):
 * SHA-256 of the canonical JSON of `{event_name, matcher?, hooks: [hook]}`,
 * the hook with its `timeout` and `async` (absent fields left out). Checked
 * against the pinned Codex's own `hooks/list` in the unit test; the agents
 * test sees the hooks run.
 */
export function codexHookHash(
  event: string,
  hook: CodexCommandHook,
  matcher?: string,
): string {
  const identity = {
    event_name: codexEventLabel(event),
    ...(matcher !== undefined ? { matcher } : {}),
    hooks: [{ ...hook, async: false }],
  };
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

/**
 * Pure: macs's hooks file for a Codex agent (one command per event) and the
 * trust entries that let Codex run them. `hooksFile` is the file's path as
 * Codex names it: in the agent's Codex home, with symbolic links resolved.
 */
export function buildCodexHooks(
  events: readonly string[],
  commandFor: (event: string) => string,
  hooksFile: string,
  timeoutSec: number,
): { file: CodexHooksFile; trust: CodexHookTrust[] } {
  const file: CodexHooksFile = { hooks: {} };
  const trust: CodexHookTrust[] = [];
  for (const event of events) {
    const hook: CodexCommandHook = {
      type: 'command',
      command: commandFor(event),
      timeout: timeoutSec,
    };
    file.hooks[event] = [{ hooks: [hook] }];
    trust.push({
      key: `${hooksFile}:${codexEventLabel(event)}:0:0`,
      hash: codexHookHash(event, hook),
    });
  }
  return { file, trust };
}

/**
 * The user's config.toml with `notify` set to macs's program: a top-level
 * `notify = …` of theirs (one line or a multi-line array, before the first
 * table) is left out, and macs's goes first (root keys come before tables
 * in TOML). Everything else is kept as written; the trust entries of
 * macs's hooks come last, as tables of their own.
 */
export function buildCodexConfig(
  source: string | undefined,
  notifyArgv: readonly string[],
  trust: readonly CodexHookTrust[] = [],
): string {
  const lines = (source ?? '').split('\n');
  const kept: string[] = [];
  let inTable = false;
  let skipping = 0;
  for (const line of lines) {
    if (skipping > 0) {
      skipping += bracketDepth(line);
      continue;
    }
    if (/^\s*\[/.test(line)) inTable = true;
    if (!inTable && /^\s*notify\s*=/.test(line)) {
      skipping = Math.max(0, bracketDepth(line));
      kept.push(`# (macs) your notify, replaced below: ${line.trim()}`);
      continue;
    }
    kept.push(line);
  }
  const head = [
    '# Written by macs for an agent it starts: your Codex config.toml with',
    "# macs's notify program (docs/agents.md). Written anew at every start.",
    `notify = ${tomlStringArray(notifyArgv)}`,
    '',
  ];
  const tail = trust.length
    ? [
        '',
        "# (macs) macs's own hooks (hooks.json here), trusted for Codex.",
        ...trust.flatMap((t) => [
          `[hooks.state.${JSON.stringify(t.key)}]`,
          `trusted_hash = ${JSON.stringify(t.hash)}`,
        ]),
      ]
    : [];
  return `${[...head, ...kept].join('\n').replace(/\n*$/, '')}\n${tail.length ? `${tail.join('\n')}\n` : ''}`;
}

/** I/O: the user's config.toml, or undefined when there is none. */
export async function readCodexSource(
  sourceHome: string,
): Promise<string | undefined> {
  try {
    return await readFile(path.join(sourceHome, 'config.toml'), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * I/O: link the user's sign-in and instructions into the agent's Codex home
 * (a link of ours pointing elsewhere is replaced; a real file is kept).
 */
export async function linkCodexHome(
  agentHome: string,
  sourceHome: string,
): Promise<void> {
  if (path.resolve(agentHome) === path.resolve(sourceHome)) return;
  for (const name of CODEX_LINKED_FILES) {
    const target = path.join(sourceHome, name);
    const link = path.join(agentHome, name);
    const exists = await lstat(target).then(
      () => true,
      () => false,
    );
    const current = await lstat(link).catch(() => undefined);
    if (current && !current.isSymbolicLink()) continue;
    if (current) {
      if (exists && (await readlink(link).catch(() => '')) === target) continue;
      await rm(link, { force: true });
    }
    if (exists) await symlink(target, link);
  }
}
