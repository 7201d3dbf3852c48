/**
 * `dependsOn` for `baton apply`: before a plan of the instance runs, every instance it depends on must
 * have applied its desired state (as its file on disk reads) and be healthy, the same check the agent
 * makes. By default a dependency that is not ready refuses the apply at once (exit 1, nothing applied);
 * `--wait-for-dependencies <duration>` looks again every few seconds up to that long (for a dependency
 * another person or pipeline is applying); `--ignore-dependencies` skips the check.
 */
import type { KubeClient } from '../../kube/client.js';
import type { InstanceKey } from '../../plans/checkpoint.js';
import type { InstanceSource } from '../../plans/instance-source.js';
import type { FileTree, Renderer } from '../../render/index.js';
import { notReadyDependencies, waitingMessage, type NotReady } from '../../sync/dependency-wait.js';
import type { ValuesContext } from '../../secrets/instance-values.js';

/** How often a waiting apply looks again. */
const LOOK_AGAIN_MS = 2000;

export type DependencyPolicy = { kind: 'check'; waitSeconds: number } | { kind: 'ignore' };

export type DependencyGate = { ready: true } | { ready: false; waits: NotReady[]; message: string };

export interface DependencyGateInput {
  source: InstanceSource;
  client: KubeClient;
  tree: FileTree;
  renderer: Renderer;
  values: ValuesContext;
  /** A dependency's own cluster (docs/clusters.md); default `client`. */
  readerFor?: (key: InstanceKey) => KubeClient | undefined;
  policy: DependencyPolicy;
  /** Told each distinct wait (for the progress output). */
  onWaiting: (message: string) => void;
}

export async function gateOnDependencies(input: DependencyGateInput): Promise<DependencyGate> {
  if (input.policy.kind === 'ignore' || input.source.instance.decl.dependsOn.length === 0) return { ready: true };
  const deadline = Date.now() + input.policy.waitSeconds * 1000;
  const lookup = { client: input.client, renderer: input.renderer, tree: input.tree, now: () => new Date(), valuesFor: () => input.values, ...(input.readerFor ? { readerFor: input.readerFor } : {}) };
  let last = '';
  for (;;) {
    const waits = await notReadyDependencies(lookup, input.source);
    if (waits.length === 0) return { ready: true };
    const message = waitingMessage(waits);
    const left = deadline - Date.now();
    if (left <= 0) return { ready: false, waits, message };
    if (message !== last) input.onWaiting(`waiting for ${message} (dependsOn; up to ${input.policy.waitSeconds}s)`);
    last = message;
    await new Promise((resolve) => setTimeout(resolve, Math.min(LOOK_AGAIN_MS, left)));
  }
}

/** The refusal `baton apply` prints: what is not ready and how to go on. */
export function dependencyRefusal(file: string, gate: Extract<DependencyGate, { ready: false }>, waitedSeconds: number): { code: 'DEPENDENCY_NOT_READY'; message: string; waitingOn: { instance: string; reason: string }[] } {
  const waited = waitedSeconds > 0 ? ` after waiting ${waitedSeconds}s` : '';
  return {
    code: 'DEPENDENCY_NOT_READY',
    message: `${file}: not applied${waited}: it dependsOn instances that are not applied and healthy: ${gate.message}. Apply them first, wait with --wait-for-dependencies <duration>, or run anyway with --ignore-dependencies`,
    waitingOn: gate.waits.map((w) => ({ instance: w.instance, reason: w.reason })),
  };
}
