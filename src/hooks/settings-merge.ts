/**
 * Pure: macs's hooks inside a Claude Code settings object the user owns
 * (`macs hooks install` writes into `.claude/settings.local.json`). macs
 * adds, replaces and removes only its own entries for one agent, found by
 * their command (hook-command.ts); the user's hooks, and every other key,
 * are kept exactly, so installing twice gives the same file and
 * uninstalling gives back the user's.
 */
import {
  isMacsHookFor,
  macsHookAgent,
  type ClaudeHooksSection,
} from './hook-command.js';

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Pure: remove an agent's macs hook entries from a settings object. Entries
 * of the user (or of other tools) are kept exactly; a matcher group or an
 * event list is dropped only when macs's removal emptied it.
 */
export function removeMacsHooks(
  settings: Record<string, unknown>,
  agent: string,
): { settings: Record<string, unknown>; removed: number } {
  if (!isRecord(settings.hooks)) return { settings, removed: 0 };
  let removed = 0;
  const hooks: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const kept: unknown[] = [];
    for (const group of groups) {
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        kept.push(group);
        continue;
      }
      const entries = group.hooks.filter(
        (entry) => !(isRecord(entry) && isMacsHookFor(entry.command, agent)),
      );
      const gone = group.hooks.length - entries.length;
      removed += gone;
      if (gone > 0 && entries.length === 0) continue;
      kept.push(gone > 0 ? { ...group, hooks: entries } : group);
    }
    if (kept.length > 0 || groups.length === 0) hooks[event] = kept;
  }
  const next: Record<string, unknown> = { ...settings };
  if (Object.keys(hooks).length > 0 || Object.keys(settings.hooks).length === 0)
    next.hooks = hooks;
  else delete next.hooks;
  return { settings: next, removed };
}

/**
 * Pure: add macs's hooks for an agent to a settings object, replacing any
 * macs entries for that agent (so installing twice gives the same file) and
 * appending after the user's own groups.
 */
export function mergeMacsHooks(
  settings: Record<string, unknown>,
  agent: string,
  ours: ClaudeHooksSection,
): Record<string, unknown> {
  const { settings: clean } = removeMacsHooks(settings, agent);
  const hooks: Record<string, unknown> = isRecord(clean.hooks)
    ? { ...clean.hooks }
    : {};
  for (const [event, groups] of Object.entries(ours)) {
    const existing = Array.isArray(hooks[event])
      ? (hooks[event] as unknown[])
      : [];
    hooks[event] = [...existing, ...groups];
  }
  return { ...clean, hooks };
}

/** Agents other than `agent` that already have macs hooks in these settings. */
export function otherMacsAgents(
  settings: Record<string, unknown>,
  agent: string,
): string[] {
  const found = new Set<string>();
  if (!isRecord(settings.hooks)) return [];
  for (const groups of Object.values(settings.hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isRecord(group) || !Array.isArray(group.hooks)) continue;
      for (const entry of group.hooks) {
        if (!isRecord(entry) || typeof entry.command !== 'string') continue;
        const owner = macsHookAgent(entry.command);
        if (owner && owner !== agent) found.add(owner);
      }
    }
  }
  return [...found].sort();
}

/** An agent's macs entries by event, with their matcher: to compare installs. */
export function macsEntries(
  settings: Record<string, unknown>,
  agent: string,
): [string, string, unknown, unknown][] {
  const found: [string, string, unknown, unknown][] = [];
  if (!isRecord(settings.hooks)) return found;
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isRecord(group) || !Array.isArray(group.hooks)) continue;
      for (const entry of group.hooks) {
        if (isRecord(entry) && isMacsHookFor(entry.command, agent))
          found.push([
            event,
            String(entry.command),
            entry.timeout,
            group.matcher,
          ]);
      }
    }
  }
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}
