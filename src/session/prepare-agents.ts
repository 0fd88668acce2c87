/**
 * The first step of `macs start`, before tmux is touched: each planned
 * agent's folder is checked (or its worktree made), and what would make
 * it fail at once is told to the person as a warning: a program not on
 * PATH, or an environment that makes a preset start headless.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { createRunGit, type RunGit } from '../backends/git.js';
import { MacsError } from '../errors.js';
import { programOf } from './session-layout.js';
import type { PlannedAgent } from './plan.js';
import { ensureWorktree } from './worktree.js';

/** A planned agent with the folder it starts in, and its worktree if it has one. */
export type PreparedAgent = PlannedAgent & {
  tree?: { path: string; branch: string };
};

/** Is the program runnable (an executable path, or a name on PATH)? */
export async function isProgramOnPath(
  program: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<boolean> {
  const executable = (file: string) =>
    access(file, constants.X_OK).then(
      () => true,
      () => false,
    );
  if (program.includes('/')) return executable(path.resolve(cwd, program));
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean))
    if (await executable(path.join(dir, program))) return true;
  return false;
}

/** The variables among `keys` that `env` sets to exactly `true`. */
export function headlessEnvOf(
  keys: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  return keys.filter((key) => env[key] === 'true');
}

/**
 * Folders first: a bad cwd or worktree fails here, before tmux is touched.
 * A worker with `worktree` gets its worktree under `worktreesDir` and starts
 * in the same subfolder there (the worktree's root if that subfolder is not
 * in it).
 */
export async function prepareAgents(options: {
  agents: readonly PlannedAgent[];
  worktreesDir: string;
  env: NodeJS.ProcessEnv;
  runGit?: RunGit;
}): Promise<{ agents: PreparedAgent[]; warnings: string[] }> {
  const { agents, worktreesDir } = options;
  const warnings: string[] = [];
  const runGit = options.runGit ?? createRunGit(options.env);
  const prepared: PreparedAgent[] = [];
  for (const agent of agents) {
    let cwd = agent.cwd;
    let worktree: { path: string; branch: string } | undefined;
    if (agent.worktree) {
      const tree = await ensureWorktree({
        runGit,
        agent: agent.name,
        cwd,
        worktreesDir,
      });
      worktree = { path: tree.path, branch: tree.branch };
      cwd = (await stat(tree.cwd).then(
        (s) => s.isDirectory(),
        () => false,
      ))
        ? tree.cwd
        : tree.path;
    } else if (
      !(await stat(cwd).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    ) {
      throw new MacsError(
        `agent '${agent.name}': folder ${cwd} does not exist`,
        {
          hint: 'fix its "cwd" in macs.config.json',
        },
      );
    }
    const program = programOf(agent.command);
    if (program && !(await isProgramOnPath(program, options.env, cwd)))
      warnings.push(
        `${agent.name}: '${program}' was not found on PATH; its pane will say so and the agent will show as dead`,
      );
    const headless = headlessEnvOf(agent.preset.headlessEnv ?? [], {
      ...options.env,
      ...agent.env,
    });
    if (headless.length > 0)
      warnings.push(
        `${agent.name}: ${headless.map((key) => `${key}=true`).join(' and ')} in the environment makes ${agent.preset.description || agent.preset.name} start without its screen and exit; unset ${headless.join(' and ')} before macs start (or set it in the agent's "env" to false)`,
      );
    prepared.push({ ...agent, cwd, ...(worktree ? { tree: worktree } : {}) });
  }
  return { agents: prepared, warnings };
}
