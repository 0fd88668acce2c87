/**
 * How the agents tests run the real Gemini CLI: against our scripted API
 * server, with a settings file of its own in a temp HOME, never the user's.
 *
 * - GOOGLE_GEMINI_BASE_URL: the CLI's API client sends every model call to
 *   this base URL (read in the CLI's content generator set-up);
 * - GEMINI_API_KEY: a dummy key; `security.auth.selectedType` =
 *   `gemini-api-key` picks API-key auth, so no sign-in dialog;
 * - `security.folderTrust.enabled: false`: no "trust this folder?" dialog;
 * - no update check or notice, no usage statistics, no telemetry, no IDE
 *   nudge;
 * - the CLI retries a 429 or 5xx answer (with the default attempts, for
 *   minutes; with `general.maxAttempts` 1 or 2 it kept retrying without a
 *   pause), so the tests fail a call with 400, which it shows at once;
 * - a fixed model (`model.name`), so the requests name it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const GEMINI_MODEL = 'gemini-2.5-flash';

/** Write `<dir>/.gemini/settings.json`; returns the environment to run the CLI with. */
export function geminiEnv(
  dir: string,
  baseUrl: string,
): Record<string, string> {
  mkdirSync(path.join(dir, '.gemini'), { recursive: true });
  const settings = {
    security: {
      auth: { selectedType: 'gemini-api-key' },
      folderTrust: { enabled: false },
    },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
    },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ide: { enabled: false, hasSeenNudge: true },
    model: { name: GEMINI_MODEL },
  };
  writeFileSync(
    path.join(dir, '.gemini', 'settings.json'),
    JSON.stringify(settings, null, 2),
  );
  return {
    HOME: dir,
    GEMINI_API_KEY: 'dummy-key-for-tests',
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    // Nothing may open a browser or reach Google from a test.
    NO_BROWSER: 'true',
  };
}
