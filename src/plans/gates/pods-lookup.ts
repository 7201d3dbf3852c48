/**
 * The one gate helper that reads the cluster: fetching a waiting workload's pods so `explainWorkload`
 * can say why it waits (and fail it when its image cannot be pulled). Gates themselves stay pure.
 */
import type { KubeClient } from '../../kube/client.js';
import { isRecord, type KubeObject } from '../../kube/object.js';
import { at } from './fields.js';
import { explainWorkload, podsOfWorkload, type WorkloadExplanation } from './explain.js';
import type { GateContext, GateResult } from './types.js';

const WORKLOADS: ReadonlySet<string> = new Set(['apps/v1/Deployment', 'apps/v1/StatefulSet', 'apps/v1/DaemonSet', 'apps/v1/ReplicaSet', 'batch/v1/Job']);

/** Kinds whose readiness depends on pods selected by `spec.selector`. */
export function isWorkload(obj: Pick<KubeObject, 'apiVersion' | 'kind'>): boolean {
  return WORKLOADS.has(`${obj.apiVersion}/${obj.kind}`);
}

/** `a=1,b=2` from matchLabels: the part of a selector every server filters on (expressions are applied here). */
export function matchLabelsSelector(selector: unknown): string | undefined {
  const labels = isRecord(selector) && isRecord(selector.matchLabels) ? selector.matchLabels : {};
  const parts = Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string').map(([k, v]) => `${k}=${v}`);
  return parts.length > 0 ? parts.join(',') : undefined;
}

/**
 * For a workload whose gate is not done: list its pods and explain. Other objects, and done gates,
 * come back unchanged without a request.
 */
export async function explainFromCluster(client: KubeClient, obj: KubeObject, gate: GateResult, ctx: GateContext): Promise<WorkloadExplanation> {
  if (gate.state === 'done' || !isWorkload(obj) || obj.metadata.namespace === undefined) return { result: gate, pods: [] };
  const labelSelector = matchLabelsSelector(at(obj, 'spec.selector'));
  const { items } = await client.list('v1', 'Pod', obj.metadata.namespace, labelSelector === undefined ? {} : { labelSelector });
  return explainWorkload(obj, gate, podsOfWorkload(obj, items), ctx);
}
