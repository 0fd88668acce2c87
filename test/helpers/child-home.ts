import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the suite's empty home folder is handed to the test files. */
export const CHILD_HOME_VARIABLE = 'MACS_TEST_CHILD_HOME';

/**
 * Global setup of the projects that start shells in tmux panes: one empty
 * folder (private, made by mkdtemp) that `childEnv` gives the test children
 * as their `HOME`, removed when the run ends.
 */
export default function childHome(): () => void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-test-user-'));
  process.env[CHILD_HOME_VARIABLE] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
