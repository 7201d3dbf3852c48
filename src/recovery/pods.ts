/**
 * The pods of an instance, as the cluster shows them: which pods belong to it (the pod, or the
 * workload controlling it, is owned by the instance: `baton.dev/owner` or its labels), their per-pod
 * claims (a StatefulSet's volumeClaimTemplates), and how long each has not been ready and why. Reads
 * only; through `KubeClient`, so it works on a real cluster as on the simulated one.
 */
import type { KubeClient } from '../kube/client.js';
import { isRecord, type KubeObject } from '../kube/object.js';
import { ownerOfLive, ownerValue } from '../render/labels.js';
import type { InstanceKey } from '../plans/checkpoint.js';
import { PodNotOfInstanceError, PodUnknownError } from './errors.js';

/** Why a pod is not ready: what recovery may do something about, and what it must leave alone. */
export type NotReadyReason =
  | 'crash-loop'
  | 'unschedulable'
  | 'node-not-ready'
  | 'not-ready'
  | 'terminating'
  /** The image cannot be pulled: neither a restart nor new storage helps; never acted on. */
  | 'image-pull';

export interface WorkloadRef {
  apiVersion: string;
  kind: string;
  name: string;
}

export interface InstancePod {
  name: string;
  uid: string;
  pod: KubeObject;
  /** The controller the pod belongs to (StatefulSet, ReplicaSet, DaemonSet...), when it has one. */
  controller?: WorkloadRef;
  /** The workload of the instance it belongs to (a ReplicaSet's Deployment). */
  workload?: WorkloadRef;
  /** The pod's own claims (`<template>-<pod>` of a StatefulSet), which `replace` deletes. */
  claims: string[];
  node?: string;
  ready: boolean;
  /** When not ready: since when (the Ready condition's transition, else the pod's creation) and why. */
  notReady?: { since: string; reason: NotReadyReason; message: string };
}

const PULL = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);

const records = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isRecord) : []);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function condition(pod: KubeObject, type: string): Record<string, unknown> | undefined {
  return records(rec(pod['status']).conditions).find((c) => c.type === type);
}

export function isPodReady(pod: KubeObject): boolean {
  return pod.metadata.deletionTimestamp === undefined && condition(pod, 'Ready')?.status === 'True';
}

/** Why the pod is not ready, from its own status and its node's Ready condition. */
export function notReadyOf(pod: KubeObject, nodeReady: boolean | undefined): InstancePod['notReady'] {
  // A pod that ran to completion (a Job's) is done, not broken.
  if (isPodReady(pod) || rec(pod['status']).phase === 'Succeeded') return undefined;
  const created = pod.metadata.creationTimestamp ?? new Date(0).toISOString();
  const readyCond = condition(pod, 'Ready');
  const since = str(readyCond?.lastTransitionTime) ?? created;
  if (pod.metadata.deletionTimestamp !== undefined) return { since: pod.metadata.deletionTimestamp, reason: 'terminating', message: 'stuck terminating' };
  const statuses = [...records(rec(pod['status']).initContainerStatuses), ...records(rec(pod['status']).containerStatuses)];
  for (const s of statuses) {
    const waitingReason = str(rec(rec(s.state).waiting).reason);
    if (waitingReason !== undefined && PULL.has(waitingReason)) return { since, reason: 'image-pull', message: `container ${str(s.name) ?? '?'}: ${waitingReason}` };
  }
  if (nodeReady === false) return { since, reason: 'node-not-ready', message: `its node ${str(rec(pod['spec']).nodeName) ?? '?'} is not ready` };
  const scheduled = condition(pod, 'PodScheduled');
  if (scheduled?.status === 'False') return { since: str(scheduled.lastTransitionTime) ?? created, reason: 'unschedulable', message: str(scheduled.message) ?? 'unschedulable' };
  for (const s of statuses) {
    const waitingReason = str(rec(rec(s.state).waiting).reason);
    if (waitingReason === 'CrashLoopBackOff') return { since, reason: 'crash-loop', message: `container ${str(s.name) ?? '?'}: CrashLoopBackOff (${typeof s.restartCount === 'number' ? s.restartCount : 0} restarts)` };
  }
  return { since, reason: 'not-ready', message: str(readyCond?.message) ?? 'not ready' };
}

function controllerOf(obj: KubeObject): WorkloadRef | undefined {
  const ref = (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  return ref ? { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name } : undefined;
}

/** Reads the instance's pods: membership through owner chains (cached per call), claims, readiness. */
export class PodReader {
  private readonly owners = new Map<string, KubeObject | undefined>();
  private readonly nodes = new Map<string, boolean | undefined>();

  constructor(private readonly client: KubeClient, private readonly instance: InstanceKey) {}

  async list(): Promise<InstancePod[]> {
    const pods = (await this.client.list('v1', 'Pod', this.instance.namespace)).items;
    const out: InstancePod[] = [];
    for (const pod of pods) {
      const p = await this.describe(pod);
      if (p.owner === ownerValue(this.instance)) out.push(p.pod);
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The named pod, or a typed error: it does not exist, or it is not the instance's. */
  async get(name: string): Promise<InstancePod> {
    const pod = await this.client.get({ apiVersion: 'v1', kind: 'Pod', namespace: this.instance.namespace, name });
    if (pod === undefined) throw new PodUnknownError(this.instance, name, (await this.list()).map((p) => p.name));
    const d = await this.describe(pod);
    if (d.owner !== ownerValue(this.instance)) throw new PodNotOfInstanceError(this.instance, name, d.owner);
    return d.pod;
  }

  private async describe(pod: KubeObject): Promise<{ owner: string | undefined; pod: InstancePod }> {
    const controller = controllerOf(pod);
    let owner = ownerOfLive(pod.metadata);
    let workload: WorkloadRef | undefined;
    let claims: string[] = [];
    if (controller !== undefined) {
      const ctl = await this.owner(controller);
      workload = controller;
      const above = ctl ? controllerOf(ctl) : undefined;
      const top = above ? await this.owner(above) : undefined;
      if (above && top) workload = above;
      owner = (top ? ownerOfLive(top.metadata) : undefined) ?? (ctl ? ownerOfLive(ctl.metadata) : undefined) ?? owner;
      if (ctl && controller.kind === 'StatefulSet') {
        const templates = records(rec(ctl['spec']).volumeClaimTemplates).map((t) => str(rec(t.metadata).name) ?? 'data');
        const mounted = new Set(records(rec(pod['spec']).volumes).map((v) => str(rec(v.persistentVolumeClaim).claimName)).filter((n): n is string => n !== undefined));
        claims = templates.map((t) => `${t}-${pod.metadata.name ?? ''}`).filter((c) => mounted.has(c));
      }
    }
    const node = str(rec(pod['spec']).nodeName);
    const nodeReady = node === undefined ? undefined : await this.nodeReady(node);
    const notReady = notReadyOf(pod, nodeReady);
    return {
      owner,
      pod: {
        name: pod.metadata.name ?? '',
        uid: pod.metadata.uid ?? '',
        pod,
        ...(controller ? { controller } : {}),
        ...(workload ? { workload } : {}),
        claims,
        ...(node !== undefined ? { node } : {}),
        ready: notReady === undefined,
        ...(notReady ? { notReady } : {}),
      },
    };
  }

  private async owner(ref: WorkloadRef): Promise<KubeObject | undefined> {
    const key = `${ref.apiVersion}|${ref.kind}|${ref.name}`;
    if (!this.owners.has(key)) this.owners.set(key, await this.client.get({ ...ref, namespace: this.instance.namespace }).catch(() => undefined));
    return this.owners.get(key);
  }

  /** The node's Ready condition; `undefined` when it cannot be read (no RBAC to read Nodes: then the pod's own status decides). */
  private async nodeReady(name: string): Promise<boolean | undefined> {
    if (!this.nodes.has(name)) {
      const node = await this.client.get({ apiVersion: 'v1', kind: 'Node', name }).catch(() => undefined);
      const ready = node ? records(rec(node['status']).conditions).find((c) => c.type === 'Ready') : undefined;
      this.nodes.set(name, ready === undefined ? undefined : ready.status === 'True');
    }
    return this.nodes.get(name);
  }
}
