/**
 * At each commit the agent looks at: baton.yaml's `clusters` (the router follows them) and each
 * instance's target. An instance naming a cluster baton.yaml does not declare, or moving to another
 * cluster than the one its objects are in, is refused (located) and nothing is done for it; its
 * routing stays where its objects are, so nothing is read from or written to the wrong cluster.
 */
import { hasErrors, loadInstance, loadSettings, type FileTree, type Problem } from '../render/index.js';
import type { InstanceKey } from '../plans/checkpoint.js';
import { clusterMoveProblem, clusterViolations } from './rules.js';
import type { ClusterRouter } from './router.js';

/** What the agent knows of an instance at the commit (a DesiredInstance). */
export interface TargetedInstance {
  key: InstanceKey;
  file: string;
  cluster?: string;
  refusal?: Problem[];
}

/** What the last status says of an instance: the cluster it names, and whether anything was applied there. */
export interface PreviousTarget {
  cluster: string | undefined;
  applied: boolean;
  /** The API server its objects are on, as the status records it (checked before anything is done there). */
  server?: string;
}

export interface AssignInput {
  tree: FileTree;
  desired: ReadonlyMap<string, TargetedInstance>;
  previous: (id: string) => PreviousTarget | undefined;
  /** Instances whose file is gone, with the cluster their status names: their removal runs there. */
  removed: { key: InstanceKey; cluster: string | undefined; server?: string }[];
}

export async function assignTargets(router: ClusterRouter, input: AssignInput): Promise<void> {
  const settings = await loadSettings(input.tree).catch(() => undefined);
  // An invalid baton.yaml keeps the clusters last declared (the agent logs the problems elsewhere).
  if (settings?.ok === true) router.declare(settings.value.decl.clusters ?? []);
  const decls = settings?.ok === true ? settings.value.decl.clusters : undefined;
  for (const r of input.removed) if (!router.knows(r.key)) router.assign(r.key, r.cluster, r.server);
  for (const [id, d] of input.desired) {
    if (d.refusal !== undefined && hasErrors(d.refusal)) continue;
    const previous = input.previous(id);
    const problems = await targetProblems(input.tree, d, decls === undefined ? router.names : decls.map((c) => c.name), previous);
    if (problems.length > 0) {
      d.refusal = problems;
      // Routed where the status says its objects are, so the refusal reads and writes nothing elsewhere.
      if (previous !== undefined && !router.knows(d.key)) router.assign(d.key, previous.cluster, previous.server);
      continue;
    }
    // Where its objects are: the declaration of its cluster must still reach that server (router.ts).
    router.assign(d.key, d.cluster, previous?.applied === true && previous.cluster === d.cluster ? previous.server : undefined);
  }
}

async function targetProblems(tree: FileTree, d: TargetedInstance, names: readonly string[], previous: PreviousTarget | undefined): Promise<Problem[]> {
  const unknown = d.cluster !== undefined && !names.includes(d.cluster);
  const moved = previous !== undefined && previous.applied && previous.cluster !== d.cluster;
  if (!unknown && !moved) return [];
  const inst = await loadInstance(tree, d.file);
  const locate = inst.ok ? (path: (string | number)[]): { line: number; column: number } => inst.value.source.locate(path) : undefined;
  if (unknown) return clusterViolations(names.map((name) => ({ name })), { file: d.file, cluster: d.cluster, ...(locate ? { locate } : {}) });
  return [clusterMoveProblem({ file: d.file, from: previous?.cluster, to: d.cluster, ...(locate ? { locate } : {}) })];
}
