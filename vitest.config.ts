import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Two projects: fast pure/unit tests, and integration tests that drive a real
// tmux on a private server (`tmux -L macs-test-<random> -f /dev/null`).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          // The real-agent tests are a project of their own (below).
          exclude: [
            'test/**/*.integration.test.ts',
            'test/**/*.agents.test.ts',
            'test/**/*.web.test.ts',
            'node_modules/**',
          ],
          environment: 'node',
          // A guard against a hang, never a verdict on speed: a shared CI
          // machine may be slow (property tests get run counts instead).
          testTimeout: 60_000,
          // vitest's default is one worker fewer than the cores: one on a
          // 2-core machine, where the unit tests then took 110 s (much of it
          // waiting on child processes and files); three took 52 s.
          maxWorkers: Math.max(3, availableParallelism() - 1),
          // Unit tests first, then the integration tests (their own workers).
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.integration.test.ts'],
          globalSetup: [
            'test/helpers/require-tmux.ts',
            'test/helpers/require-sshd.ts',
            'test/helpers/child-home.ts',
          ],
          environment: 'node',
          testTimeout: 240_000,
          hookTimeout: 60_000,
          // Integration tests mostly wait on tmux and child processes: a
          // few files at once use a 2-core machine better than one.
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // `macs web` in a real browser: Debian's chromium, driven by
        // playwright-core (no browser download); the set-up installs
        // chromium when it is missing (test/helpers/require-chromium.ts).
        test: {
          name: 'web',
          include: ['test/**/*.web.test.ts'],
          globalSetup: [
            'test/helpers/require-tmux.ts',
            'test/helpers/require-chromium.ts',
            'test/helpers/child-home.ts',
          ],
          environment: 'node',
          testTimeout: 240_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
      {
        // The real Claude Code, Codex CLI and Gemini CLI against scripted
        // model servers on 127.0.0.1 (npm run test:agents; docs/agents.md).
        test: {
          name: 'agents',
          include: ['test/agents/**/*.agents.test.ts'],
          globalSetup: [
            'test/agents/require-agents.ts',
            'test/helpers/child-home.ts',
          ],
          environment: 'node',
          testTimeout: 240_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
