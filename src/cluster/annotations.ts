/**
 * Annotations the simulated cluster reads, shared by the API server (logs) and the simulated kubelet
 * (termination messages, node failure). See docs/cluster-workloads.md.
 */

/** The container's output, one log line per text line (`sim.baton.dev/log.<container>` for one container). */
export const SIM_LOG = 'sim.baton.dev/log';
/** What the container writes to its termination log (`state.terminated.message`); `.<container>` for one. */
export const SIM_TERMINATION_MESSAGE = 'sim.baton.dev/termination-message';
/** On a Node: `"true"` makes the simulated kubelet stop reporting (the node goes NotReady). */
export const SIM_NODE_DOWN = 'sim.baton.dev/node-down';

/** The annotation for one container, falling back to the pod-wide one. */
export function perContainer(annotations: Record<string, string> | undefined, key: string, container: string): string | undefined {
  return annotations?.[`${key}.${container}`] ?? annotations?.[key];
}
