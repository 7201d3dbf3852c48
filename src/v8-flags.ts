/**
 * V8 flags a process sets for itself while it runs (v8.setFlagsFromString), kept so that they can be set
 * again when V8 overwrites them.
 *
 * V8 flags are process-wide, and V8 sets up the heap of every new isolate (a worker thread's included)
 * from them, adjusting some on the way: it raises `--semi-space-growth-factor` to at least 2. So a
 * process that set the factor to 1 (the agent keeps its young generation at 1 MiB semi-spaces, see
 * src/cli/agent-v8.ts) gets its main heap's young generation growing again (to 16 MiB semi-spaces,
 * 32 MiB reserved) as soon as it starts a worker thread (the lease renewer's). Whoever starts a thread
 * calls `reassertV8Flags` once the thread runs (its isolate exists): docs/scale-out.md, "Memory of one
 * agent process".
 */
import { setFlagsFromString } from 'node:v8';

let applied: readonly string[] = [];

/** Sets `flags` for this process and remembers them for `reassertV8Flags`. */
export function setProcessV8Flags(flags: readonly string[]): void {
  for (const flag of flags) setFlagsFromString(flag);
  applied = [...applied, ...flags];
}

/** Sets again the flags `setProcessV8Flags` set (after a new isolate's heap setup changed them); returns them. */
export function reassertV8Flags(): readonly string[] {
  for (const flag of applied) setFlagsFromString(flag);
  return applied;
}
