/** Waiting on conditions, never on fixed sleeps. */

/** Resolves once `cond` holds (checked every `everyMs`); rejects with `what` after `timeoutMs`. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, what = 'condition', everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
