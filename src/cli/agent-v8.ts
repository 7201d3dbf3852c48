/**
 * V8 heap settings the long-running agent chooses for itself, so that no operator has to size a heap
 * flag by hand (docs/scale-out.md, "Memory of one agent process").
 *
 * With V8's defaults a Node process sizes its heap for throughput on the machine it runs on: the young
 * generation grows to 16 MiB per semi-space, and after each full collection the old generation may grow
 * up to 4 times its live data before the next one (on a machine with plenty of memory). The agent's live
 * heap is small (about 45 MiB at 1,000 instances) and long-lived; that slack, not live data, was most of
 * its RSS. So `baton agent`:
 * - keeps the young generation at its initial size (1 MiB semi-spaces): `--semi-space-growth-factor=1`;
 * - lets the old generation grow by a fixed 30% of its live data between full collections
 *   (`--heap-growing-percent=30`), which scales with the instances an agent holds instead of with a
 *   number someone must choose.
 * Both are V8 flags that V8 reads while it runs, so they are set in-process (v8.setFlagsFromString)
 * before the CLI's modules load: no second process. An operator who sets any heap flag of their own
 * (in NODE_OPTIONS or on node's command line) keeps exactly their settings, and `BATON_V8_DEFAULTS=1`
 * keeps V8's defaults. The old generation's hard ceiling is left to Node, which derives it from the
 * container's memory limit (cgroup) when there is one. V8 resets the growth factor whenever it sets up
 * a new isolate's heap: a worker thread's starter sets the flags again (src/v8-flags.ts).
 */
import { setProcessV8Flags } from '../v8-flags.js';

/** The flags `baton agent` sets for itself (see above). */
export const AGENT_V8_FLAGS: readonly string[] = ['--semi-space-growth-factor=1', '--heap-growing-percent=30'];

/** Heap flags that mean the operator sized the heap: then the agent changes nothing. */
const OPERATOR_HEAP_FLAG = /--(?:max[-_]semi[-_]space[-_]size|min[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor|max[-_]old[-_]space[-_]size|max[-_]heap[-_]size|initial[-_]heap[-_]size|heap[-_]growing[-_]percent|optimize[-_]for[-_]size)\b/;

/**
 * The flags to set for this process: none unless the command is `baton agent`, none when the operator
 * set a heap flag of their own or asked for V8's defaults.
 */
export function agentV8Flags(argv: readonly string[], env: NodeJS.ProcessEnv, execArgv: readonly string[]): readonly string[] {
  if (argv[2] !== 'agent') return [];
  if (env.BATON_V8_DEFAULTS === '1' || env.BATON_V8_DEFAULTS === 'true') return [];
  if (OPERATOR_HEAP_FLAG.test(env.NODE_OPTIONS ?? '') || execArgv.some((a) => OPERATOR_HEAP_FLAG.test(a))) return [];
  return AGENT_V8_FLAGS;
}

/** Sets the agent's V8 flags for this process (see agentV8Flags); returns the flags set. */
export function applyAgentV8Settings(argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): readonly string[] {
  const flags = agentV8Flags(argv, env, execArgv);
  setProcessV8Flags(flags);
  return flags;
}
