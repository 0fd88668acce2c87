#!/usr/bin/env node
// Installs the real agents the `agents` test suite drives, at pinned
// versions, into a git-ignored cache of this checkout (.cache/agents/<name>).
// They are never dependencies of macs: Claude Code's licence is proprietary,
// so it is installed for tests only and never shipped.
//
//   node scripts/agents/install.mjs            install what is missing
//   node scripts/agents/install.mjs --print    print the JSON of what is installed
//
// A failed install exits 1 with the package and npm's last lines, so the
// suite fails with a clear message instead of skipping.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENTS, agentDir, agentBin } from './pins.mjs';

const ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../..',
);

function installed(agent) {
  const manifest = path.join(
    agentDir(ROOT, agent),
    'node_modules',
    agent.pkg,
    'package.json',
  );
  if (!existsSync(manifest)) return false;
  try {
    return JSON.parse(readFileSync(manifest, 'utf8')).version === agent.version;
  } catch {
    return false;
  }
}

function install(agent) {
  const dir = agentDir(ROOT, agent);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const spec = `${agent.pkg}@${agent.version}`;
  process.stderr.write(
    `agents: installing ${spec} into ${path.relative(ROOT, dir)}\n`,
  );
  const run = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', dir, spec],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (run.status !== 0 || !installed(agent)) {
    const tail = `${run.stdout}\n${run.stderr}`
      .trim()
      .split('\n')
      .slice(-15)
      .join('\n');
    process.stderr.write(
      `agents: could not install ${spec} (npm exit ${run.status})\n${tail}\n`,
    );
    process.exit(1);
  }
}

const print = process.argv.includes('--print');
for (const agent of AGENTS) {
  if (!installed(agent)) install(agent);
}
const summary = Object.fromEntries(
  AGENTS.map((a) => [a.name, { version: a.version, bin: agentBin(ROOT, a) }]),
);
if (print) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
else
  process.stderr.write(
    `agents: ready (${AGENTS.map((a) => `${a.name} ${a.version}`).join(', ')})\n`,
  );
