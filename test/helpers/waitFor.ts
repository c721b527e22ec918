// Waiting on a condition with a deadline: the only way tests wait (never a fixed sleep).
export async function waitFor<T>(check: () => T | Promise<T>, opts: { timeout?: number; interval?: number; what?: string } = {}): Promise<NonNullable<T>> {
  const timeout = opts.timeout ?? 10_000;
  const interval = opts.interval ?? 25;
  const start = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() - start > timeout) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${opts.what ?? 'condition'}${why}`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
