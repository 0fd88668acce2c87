/**
 * How much longer than asked a wait may take before it fails: the deadline
 * is a guard against a hang, never a verdict on speed, and a shared CI
 * machine (or two suites at once) can be several times slower than a quiet
 * one. `MACS_TEST_TIMEOUT_SCALE` sets it (default 2).
 */
export const TIMEOUT_SCALE =
  Number(process.env.MACS_TEST_TIMEOUT_SCALE) > 0
    ? Number(process.env.MACS_TEST_TIMEOUT_SCALE)
    : 2;

/**
 * Poll a condition until it holds or the deadline passes. Tests wait on a
 * condition, never on a fixed sleep.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  options: { timeout?: number; interval?: number; message?: string } = {},
): Promise<NonNullable<T>> {
  const timeout = (options.timeout ?? 10_000) * TIMEOUT_SCALE;
  const interval = options.interval ?? 20;
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why =
        lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(
        `waitFor timed out after ${timeout} ms: ${options.message ?? 'condition'}${why}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
