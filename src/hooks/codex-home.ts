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
 * Pure, except `readCodexSource` and `linkCodexHome`.
 */
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

/**
 * The user's config.toml with `notify` set to macs's program: a top-level
 * `notify = …` of theirs (one line or a multi-line array, before the first
 * table) is left out, and macs's goes first (root keys come before tables
 * in TOML). Everything else is kept as written.
 */
export function buildCodexConfig(
  source: string | undefined,
  notifyArgv: readonly string[],
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
  return `${[...head, ...kept].join('\n').replace(/\n*$/, '')}\n`;
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
