import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { stripVTControlCharacters } from 'node:util';

/** Key sequences as a terminal sends them. */
export const KEYS = {
  up: '\u001b[A',
  down: '\u001b[B',
  enter: '\r',
  escape: '\u001b',
  backspace: '\u007f',
  ctrlD: '\u0004',
  ctrlU: '\u0015',
} as const;

/** Let React commit and run effects, and ink flush a lone ESC (setImmediate). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i += 1)
    await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Render an ink element for a test: `frame()` is the last frame without
 * ANSI codes, `raw()` with them; `press()` types keys and lets the view
 * settle.
 */
export async function renderInk(element: ReactElement) {
  const instance = render(element);
  await settle();
  return {
    ...instance,
    frame: () => stripVTControlCharacters(instance.lastFrame() ?? ''),
    raw: () => instance.lastFrame() ?? '',
    async press(...keys: string[]) {
      for (const key of keys) {
        instance.stdin.write(key);
        await settle();
      }
    },
  };
}
