/** What workload controllers need to know about the pods they own. */
import type { KubeObject } from '../../../kube/object.js';
import { controllerRef, findCondition, isControlledBy, isTerminating, nameOf, record, status, str } from './meta.js';
import { simAnnotations } from '../sim.js';

export function isActive(pod: KubeObject): boolean {
  const phase = str(status(pod).phase);
  return !isTerminating(pod) && phase !== 'Succeeded' && phase !== 'Failed';
}

export function isReady(pod: KubeObject): boolean {
  return findCondition(pod, 'Ready')?.status === 'True';
}

/** Ready for at least minReadySeconds (the Ready condition's transition time is whole seconds). */
export function isAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  if (!isReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(findCondition(pod, 'Ready')?.lastTransitionTime ?? '');
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now;
}

export function ownedPods(owner: KubeObject, pods: KubeObject[]): KubeObject[] {
  return pods.filter((p) => p.metadata.namespace === owner.metadata.namespace && isControlledBy(p, owner));
}

/** A pod from a workload's template, owned by it, carrying the workload's sim.baton.dev annotations. */
export function podFromTemplate(owner: KubeObject, template: unknown, name: string, extraLabels: Record<string, string> = {}, specOverrides: Record<string, unknown> = {}): KubeObject {
  const t = record(template);
  const meta = record(t.metadata);
  const labels = { ...(record(meta.labels) as Record<string, string>), ...extraLabels };
  const annotations = { ...simAnnotations(owner), ...(record(meta.annotations) as Record<string, string>) };
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: owner.metadata.namespace ?? 'default', labels, ownerReferences: [controllerRef(owner)] },
    spec: { ...record(t.spec), ...specOverrides },
  };
  if (Object.keys(annotations).length > 0) pod.metadata.annotations = annotations;
  return pod;
}

/** Which pods to delete first when scaling down: unscheduled, pending, not ready, then the newest. */
export function deletionOrder(a: KubeObject, b: KubeObject): number {
  const rank = (p: KubeObject): number => (str(record(p.spec).nodeName) ? 1 : 0) + (str(status(p).phase) === 'Running' ? 2 : 0) + (isReady(p) ? 4 : 0);
  return rank(a) - rank(b) || (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') || nameOf(b).localeCompare(nameOf(a));
}
