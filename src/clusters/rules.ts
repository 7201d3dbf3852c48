/**
 * Which cluster an instance targets, as pure rules over baton.yaml `clusters` and the instance file's
 * `cluster:` (docs/clusters.md). An unknown name is a located problem, so validate, previews, `baton
 * apply` and the agent's refusals show the same text, and nothing is done for the instance.
 */
import { problem, type Problem } from '../render/problems.js';
import type { ClusterDecl } from '../render/schemas.js';

/** How status, previews and logs name the agent's own cluster (instances without `cluster:`). */
export const OWN_CLUSTER = 'own';

export interface ClusterFacts {
  file: string;
  /** The instance file's `cluster:`, if any. */
  cluster: string | undefined;
  locate?: (path: (string | number)[]) => { line: number; column: number };
}

/** The names baton.yaml declares, in order. */
export function clusterNames(clusters: readonly Pick<ClusterDecl, 'name'>[] | undefined): string[] {
  return (clusters ?? []).map((c) => c.name);
}

/** The instance names a cluster baton.yaml declares (or none: the agent's own). */
export function clusterViolations(clusters: readonly Pick<ClusterDecl, 'name'>[] | undefined, facts: ClusterFacts): Problem[] {
  if (facts.cluster === undefined) return [];
  const names = clusterNames(clusters);
  if (names.includes(facts.cluster)) return [];
  const expected = names.length === 0
    ? 'baton.yaml declares no clusters: add it under `clusters:` or remove `cluster:` to use the agent\'s own cluster'
    : `expected one of baton.yaml clusters: ${names.join(', ')} (or no \`cluster:\` for the agent's own cluster)`;
  return [problem({
    code: 'CLUSTER_UNKNOWN', file: facts.file, path: ['cluster'], ...(facts.locate?.(['cluster']) ?? { line: 1, column: 1 }),
    message: `cluster "${facts.cluster}" is not declared in baton.yaml; ${expected}`,
  })];
}

/** The declaration of a named cluster; undefined for the agent's own. */
export function clusterDecl(clusters: readonly ClusterDecl[] | undefined, name: string | undefined): ClusterDecl | undefined {
  return name === undefined ? undefined : clusters?.find((c) => c.name === name);
}

/**
 * The instance's objects are in cluster `from` and its file now names `to`: refused (the agent at a
 * commit, `baton preview` before the merge), with the same words everywhere.
 */
export function clusterMoveProblem(facts: { file: string; from: string | undefined; to: string | undefined; locate?: ClusterFacts['locate'] }): Problem {
  const from = facts.from ?? OWN_CLUSTER;
  const to = facts.to ?? OWN_CLUSTER;
  return problem({
    code: 'CLUSTER_MOVE', file: facts.file, path: ['cluster'], ...(facts.locate?.(['cluster']) ?? { line: 1, column: 1 }),
    message: `the instance's objects are in cluster "${from}"; moving it to "${to}" is not done in place: keep cluster "${from}" in this file, or remove the file, let the agent remove the instance, then add it again with cluster "${to}"`,
  });
}

/**
 * A change declares cluster `cluster` with another API server than instances on it are on: the agent
 * stops them (ClusterServerChangedError, router.ts); `baton preview` shows it before the merge.
 */
export function clusterServerChangeProblem(facts: { cluster: string; instance: string; from: string; to: string }): Problem {
  const { cluster, instance, from, to } = facts;
  return problem({
    code: 'CLUSTER_SERVER_CHANGED', file: 'baton.yaml', path: ['clusters'],
    message: `cluster "${cluster}" now reaches server ${to} (${from} before this change), where instance ${instance}'s objects and checkpoint are not: the agent does not move instances between API servers and stops this one (nothing read or written) until "${cluster}" reaches ${from} again; keep ${from} for "${cluster}" (another kubeconfig, context or credentials for that same server are fine), or remove the instance first (while "${cluster}" still reaches ${from}) and add it again after the change`,
  });
}
