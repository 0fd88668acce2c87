/**
 * A Codex home for the real-Codex tests: a temp folder with a config.toml
 * that points Codex at our scripted Responses server and turns off what
 * would reach the network (docs/agents.md, `## Codex CLI`). `macs start`
 * builds the agent's own Codex home from it (src/hooks/codex-home.ts).
 *
 * Keys (Codex configuration reference): `model_provider` selects an entry
 * of `[model_providers]`, whose `base_url`, `wire_api = "responses"` and
 * `env_key` (the variable holding the API key: a dummy one, so no sign-in
 * is asked) say where and how to talk; `request_max_retries` and
 * `stream_max_retries` 0 make a failure show at once;
 * `check_for_update_on_startup = false`, `[analytics] enabled = false`;
 * `[projects."<dir>"] trust_level = "trusted"` skips the folder-trust
 * question. The environment adds a proxy that goes nowhere for anything
 * but 127.0.0.1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The environment variable holding the dummy API key. */
export const CODEX_KEY_ENV = 'MACS_TEST_CODEX_KEY';

export function writeCodexSourceHome(options: {
  dir: string;
  baseUrl?: string;
  trusted: readonly string[];
  approvalPolicy?: string;
}): string {
  mkdirSync(options.dir, { recursive: true });
  const lines = [
    'check_for_update_on_startup = false',
    ...(options.baseUrl
      ? [
          'model = "gpt-5-codex"',
          'model_provider = "macs_test"',
          `approval_policy = "${options.approvalPolicy ?? 'on-request'}"`,
          'sandbox_mode = "workspace-write"',
        ]
      : []),
    '',
    '[analytics]',
    'enabled = false',
    '',
    ...(options.baseUrl
      ? [
          '[model_providers.macs_test]',
          'name = "macs test server"',
          `base_url = "${options.baseUrl}"`,
          'wire_api = "responses"',
          `env_key = "${CODEX_KEY_ENV}"`,
          'request_max_retries = 0',
          'stream_max_retries = 0',
          '',
        ]
      : []),
    ...options.trusted.flatMap((dir) => [
      `[projects.${JSON.stringify(dir)}]`,
      'trust_level = "trusted"',
      '',
    ]),
  ];
  writeFileSync(path.join(options.dir, 'config.toml'), lines.join('\n'));
  return options.dir;
}

/** The environment a test Codex runs with (on top of macs's own). */
export function codexTestEnv(sourceHome: string): Record<string, string> {
  const nowhere = 'http://127.0.0.1:9';
  return {
    CODEX_HOME: sourceHome,
    [CODEX_KEY_ENV]: 'dummy-key-for-a-local-test-server',
    HTTP_PROXY: nowhere,
    HTTPS_PROXY: nowhere,
    ALL_PROXY: nowhere,
    NO_PROXY: '127.0.0.1,localhost',
  };
}
