/**
 * The StatefulSet controller's decisions (pkg/controller/statefulset/stateful_set_control.go), pure:
 * stable ordinal pods with their claims, OrderedReady (one at a time, each Ready before the next;
 * scale down from the highest ordinal) or Parallel pod management, and rolling updates from the
 * highest ordinal down to the partition (or none with OnDelete).
 */
import type { KubeObject } from '../../../kube/object.js';
import { nameOf, num, record, records, spec, status, str } from '../runtime/meta.js';
import { isReady, isActive } from '../runtime/pods.js';

export const REVISION_LABEL = 'controller-revision-hash';
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

export type StatefulStep =
  | { kind: 'create'; ordinal: number; revision: string }
  | { kind: 'delete'; pod: KubeObject; why: 'condemned' | 'update' | 'failed' };

export interface StatefulInput {
  sts: KubeObject;
  /** Owned pods, by ordinal. */
  pods: Map<number, KubeObject>;
  currentRevision: string;
  updateRevision: string;
}

export function ordinalOf(sts: KubeObject, pod: KubeObject): number | undefined {
  const prefix = `${nameOf(sts)}-`;
  const name = nameOf(pod);
  if (!name.startsWith(prefix)) return undefined;
  const n = Number(name.slice(prefix.length));
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

export function revisionOfPod(pod: KubeObject): string | undefined {
  return pod.metadata.labels?.[REVISION_LABEL];
}

export function strategyOf(sts: KubeObject): { type: 'RollingUpdate' | 'OnDelete'; partition: number } {
  const strategy = record(spec(sts).updateStrategy);
  const type = str(strategy.type) === 'OnDelete' ? 'OnDelete' : 'RollingUpdate';
  return { type, partition: num(record(strategy.rollingUpdate).partition, 0) };
}

const healthy = (pod: KubeObject | undefined): boolean => pod !== undefined && isActive(pod) && isReady(pod);

/** The steps to take now. OrderedReady yields at most one; Parallel may yield many. */
export function statefulSteps(input: StatefulInput): StatefulStep[] {
  const { sts, pods, currentRevision, updateRevision } = input;
  const replicas = num(spec(sts).replicas, 1);
  const parallel = str(spec(sts).podManagementPolicy) === 'Parallel';
  const { type, partition } = strategyOf(sts);
  const steps: StatefulStep[] = [];
  const revisionFor = (ordinal: number): string => (type === 'RollingUpdate' && ordinal < partition ? currentRevision : updateRevision);

  // Failed pods are replaced.
  for (const pod of pods.values()) {
    if (str(status(pod).phase) === 'Failed' && pod.metadata.deletionTimestamp === undefined) steps.push({ kind: 'delete', pod, why: 'failed' });
  }
  if (steps.length > 0) return steps;

  for (let i = 0; i < replicas; i++) {
    const pod = pods.get(i);
    if (!pod) {
      steps.push({ kind: 'create', ordinal: i, revision: revisionFor(i) });
      if (!parallel) return steps;
      continue;
    }
    if (!parallel && !healthy(pod)) return steps;
  }
  if (steps.length > 0) return steps;

  const condemned = [...pods.entries()].filter(([i]) => i >= replicas).sort(([a], [b]) => b - a);
  if (condemned.length > 0) {
    if (parallel) return condemned.map(([, pod]) => ({ kind: 'delete', pod, why: 'condemned' }));
    const allHealthy = [...pods.entries()].every(([i, p]) => i >= replicas || healthy(p));
    const [, highest] = condemned[0] ?? [];
    if (highest && allHealthy && highest.metadata.deletionTimestamp === undefined) return [{ kind: 'delete', pod: highest, why: 'condemned' }];
    return [];
  }

  if (type === 'OnDelete') return [];
  // Rolling update: every pod must be healthy first, then the highest outdated ordinal >= partition goes.
  for (let i = 0; i < replicas; i++) if (!healthy(pods.get(i))) return [];
  for (let i = replicas - 1; i >= partition; i--) {
    const pod = pods.get(i);
    if (pod && revisionOfPod(pod) !== updateRevision) return [{ kind: 'delete', pod, why: 'update' }];
  }
  return [];
}

export function statefulStatus(sts: KubeObject, pods: KubeObject[], currentRevision: string, updateRevision: string): Record<string, unknown> {
  const replicas = num(spec(sts).replicas, 1);
  const existing = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
  const ready = existing.filter(isReady).length;
  const updated = existing.filter((p) => revisionOfPod(p) === updateRevision).length;
  let current = existing.filter((p) => revisionOfPod(p) === currentRevision).length;
  let currentRev = currentRevision;
  // completeRollingUpdate: once every pod runs the update revision and is ready, it becomes current.
  if (updated === replicas && existing.length === replicas && ready === replicas) {
    currentRev = updateRevision;
    current = updated;
  }
  return {
    observedGeneration: sts.metadata.generation ?? 1,
    replicas: existing.length,
    readyReplicas: ready,
    currentReplicas: current,
    updatedReplicas: updated,
    availableReplicas: ready,
    currentRevision: currentRev,
    updateRevision,
    collisionCount: num(status(sts).collisionCount, 0),
  };
}

/** `<template>-<pod>` claims, as the real controller names them. */
export function claimsFor(sts: KubeObject, podName: string): { template: Record<string, unknown>; name: string }[] {
  return records(spec(sts).volumeClaimTemplates).map((template) => ({ template, name: `${str(record(template.metadata).name) ?? 'data'}-${podName}` }));
}
