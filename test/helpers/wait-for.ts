/**
 * Poll a condition until it holds or the deadline passes. Tests wait on a
 * condition, never on a fixed sleep.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  options: { timeout?: number; interval?: number; message?: string } = {},
): Promise<NonNullable<T>> {
  const timeout = options.timeout ?? 10_000;
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
