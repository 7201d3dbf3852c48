/**
 * Replicas a scale-down removed (framework.yaml `decommission:`, docs/recovery.md): the claims of a
 * StatefulSet of the instance whose ordinal is at or above its replicas, once the scale-down finished
 * (no pod of such an ordinal is left). `volumes: delete` deletes them as a run of the pseudo-plan
 * `decommission` (one step per removed pod), recorded like every pod action.
 *
 * `removedClaimsOf` is also what a preview uses to say what a scale-down will delete (`claimsAbove`).
 */
import type { KubeClient } from '../kube/client.js';
import { isRecord, type KubeObject } from '../kube/object.js';
import { ownerOfLive, ownerValue } from '../render/labels.js';
import type { CheckpointStore, InstanceKey } from '../plans/checkpoint.js';
import { BatonError, errorMessage } from '../errors.js';
import { KubeApiError } from '../kube/errors.js';
import { waitUntilGone } from '../plans/batch.js';
import { systemClock, type Clock } from '../plans/clock.js';
import { isUnfinished } from '../plans/concurrency.js';
import { safeEmitter, type EventListener } from '../plans/events.js';
import type { EngineHooks } from '../plans/hooks.js';
import type { PlanRun } from '../plans/state.js';
import { PodRunRecorder } from './recorder.js';

export const DECOMMISSION_PLAN = 'decommission';

export interface RemovedReplica {
  statefulSet: string;
  pod: string;
  ordinal: number;
  /** Claims of the removed pod: name and uid. */
  claims: { name: string; uid: string }[];
}

const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

function claimTemplates(sts: KubeObject): string[] {
  const templates = rec(sts['spec']).volumeClaimTemplates;
  return Array.isArray(templates) ? templates.map((t) => { const name = rec(rec(t).metadata).name; return typeof name === 'string' ? name : 'data'; }) : [];
}

/** `<template>-<sts>-<ordinal>` -> ordinal, for one of the StatefulSet's claim templates. */
function ordinalOfClaim(sts: KubeObject, claim: string): number | undefined {
  for (const t of claimTemplates(sts)) {
    const prefix = `${t}-${sts.metadata.name ?? ''}-`;
    if (!claim.startsWith(prefix)) continue;
    const rest = claim.slice(prefix.length);
    if (/^(0|[1-9]\d*)$/.test(rest)) return Number(rest);
  }
  return undefined;
}

/** Claims of a StatefulSet with ordinals at or above `replicas`, among `claims` (pure; previews use it). */
export function claimsAbove(sts: KubeObject, replicas: number, claims: readonly string[]): { claim: string; ordinal: number }[] {
  return claims.flatMap((c) => {
    const o = ordinalOfClaim(sts, c);
    return o !== undefined && o >= replicas ? [{ claim: c, ordinal: o }] : [];
  });
}

/**
 * The replicas the instance's StatefulSets no longer have, whose claims are still there. A StatefulSet
 * still scaling (a pod at or above its replicas left, or its status not caught up) is skipped.
 */
export async function removedReplicas(client: KubeClient, instance: InstanceKey): Promise<RemovedReplica[]> {
  const ns = instance.namespace;
  const owner = ownerValue(instance);
  const sets = (await client.list('apps/v1', 'StatefulSet', ns)).items.filter((s) => ownerOfLive(s.metadata) === owner && claimTemplates(s).length > 0);
  if (sets.length === 0) return [];
  const claims = (await client.list('v1', 'PersistentVolumeClaim', ns)).items;
  const pods = new Set((await client.list('v1', 'Pod', ns)).items.map((p) => p.metadata.name ?? ''));
  const out: RemovedReplica[] = [];
  for (const sts of sets) {
    const replicas = typeof rec(sts['spec']).replicas === 'number' ? (rec(sts['spec']).replicas as number) : 1;
    const status = rec(sts['status']);
    if (typeof status.replicas === 'number' && status.replicas > replicas) continue;
    const byOrdinal = new Map<number, RemovedReplica>();
    for (const { claim, ordinal } of claimsAbove(sts, replicas, claims.map((c) => c.metadata.name ?? ''))) {
      const pod = `${sts.metadata.name ?? ''}-${ordinal}`;
      const live = claims.find((c) => c.metadata.name === claim);
      if (pods.has(pod) || live === undefined || live.metadata.deletionTimestamp !== undefined) continue;
      const entry = byOrdinal.get(ordinal) ?? { statefulSet: sts.metadata.name ?? '', pod, ordinal, claims: [] };
      entry.claims.push({ name: claim, uid: live.metadata.uid ?? '' });
      byOrdinal.set(ordinal, entry);
    }
    out.push(...[...byOrdinal.values()].sort((a, b) => a.ordinal - b.ordinal));
  }
  return out;
}

export interface DecommissionOptions {
  client: KubeClient;
  hooks: EngineHooks;
  store: CheckpointStore;
  instance: InstanceKey;
  removed: readonly RemovedReplica[];
  /** Delete the claims (`volumes: delete`); false: only record them as handled (a `plan` ran for them). */
  deleteClaims: boolean;
  reason: string;
  sourceCommit?: string;
  clock?: Clock;
  signal?: AbortSignal;
  onEvent?: EventListener;
  timeoutSeconds?: number;
}

/** Deletes the removed replicas' claims, one step per removed pod, as a `decommission` run. */
export async function runDecommission(options: DecommissionOptions): Promise<{ kind: 'complete' | 'failed'; run: PlanRun } | { kind: 'skipped'; reason: string }> {
  const clock = options.clock ?? systemClock;
  const emit = safeEmitter(options.onEvent);
  const stored = await options.store.load(options.instance);
  if (stored === undefined) return { kind: 'skipped', reason: 'no checkpoint' };
  if (isUnfinished(stored.checkpoint.active)) return { kind: 'skipped', reason: 'a plan runs' };
  const uids = options.removed.flatMap((r) => r.claims.map((c) => c.uid));
  const recorder = new PodRunRecorder({
    store: options.store, stored, hooks: options.hooks, clock, emit, instance: options.instance, plan: DECOMMISSION_PLAN, phase: 'volumes',
    steps: options.removed.map((r) => r.pod), reason: options.reason, args: { POD: options.removed.map((r) => r.pod).join(','), BY: 'decommission' },
    ...(options.sourceCommit ? { sourceCommit: options.sourceCommit } : {}),
    entries: (runId, at) => options.removed.map((r) => ({ pod: r.pod, action: 'decommission', at, runId, by: 'decommission' })),
    alsoSave: (cp) => ({ ...cp, pods: { ...(cp.pods ?? { recent: [] }), decommissioned: [...new Set([...uids, ...(cp.pods?.decommissioned ?? [])])].slice(0, 200) } }),
  });
  await recorder.start();
  const deadline = AbortSignal.timeout((options.timeoutSeconds ?? 300) * 1000);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  for (const r of options.removed) {
    await recorder.stepStarted(r.pod, options.deleteClaims ? `deleting ${r.claims.map((c) => c.name).join(', ')}` : 'claims kept', r.claims.length);
    try {
      if (options.deleteClaims) {
        const refs = r.claims.map((c) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: options.instance.namespace, name: c.name }));
        for (const [i, ref] of refs.entries()) await options.client.delete(ref, { preconditions: { uid: r.claims[i]?.uid ?? '' } }).catch((err: unknown) => { if (!(err instanceof KubeApiError && err.status === 404)) throw err; });
        await waitUntilGone(refs, { client: options.client, clock, hooks: options.hooks, signal, onWaiting: (object, message) => recorder.waiting(r.pod, object, message) });
      }
      await recorder.stepComplete(r.pod, options.deleteClaims ? `deleted ${r.claims.map((c) => c.name).join(', ')}` : `kept ${r.claims.map((c) => c.name).join(', ')}`, options.deleteClaims ? r.claims.length : 0);
    } catch (err) {
      await recorder.stepFailed(r.pod, { code: err instanceof BatonError ? err.code : 'DECOMMISSION_FAILED', message: errorMessage(err), object: `Pod ${options.instance.namespace}/${r.pod}` });
    }
  }
  const claims = options.removed.flatMap((r) => r.claims.map((c) => c.name));
  return recorder.finish(`${options.deleteClaims ? 'deleted' : 'kept'} ${claims.join(', ')} of removed replica${options.removed.length === 1 ? '' : 's'} ${options.removed.map((r) => r.pod).join(', ')}`);
}

export interface ScaleDown {
  statefulSet: string;
  /** Pods the scale-down removes, highest ordinal first (the order the StatefulSet controller removes them). */
  pods: string[];
  claims: string[];
}

/** What a change scales down (pure; `baton preview`): StatefulSets rendered with fewer replicas than before, their removed pods and claims. */
export function scaleDowns(before: readonly KubeObject[], after: readonly KubeObject[]): ScaleDown[] {
  const replicasOf = (o: KubeObject): number => (typeof rec(o['spec']).replicas === 'number' ? (rec(o['spec']).replicas as number) : 1);
  const out: ScaleDown[] = [];
  const seen = new Set<string>();
  for (const sts of after) {
    const id = `${sts.metadata.namespace ?? ''}/${sts.metadata.name ?? ''}`;
    // A lifecycle plan's objects may be listed by more than one plan (deploy and update): once each.
    if (sts.kind !== 'StatefulSet' || seen.has(id)) continue;
    seen.add(id);
    const old = before.find((b) => b.kind === 'StatefulSet' && b.metadata.name === sts.metadata.name && b.metadata.namespace === sts.metadata.namespace);
    if (old === undefined || replicasOf(sts) >= replicasOf(old)) continue;
    const ordinals = Array.from({ length: replicasOf(old) - replicasOf(sts) }, (_, i) => replicasOf(old) - 1 - i);
    const name = sts.metadata.name ?? '';
    out.push({ statefulSet: name, pods: ordinals.map((n) => `${name}-${n}`), claims: ordinals.flatMap((n) => claimTemplates(sts).map((t) => `${t}-${name}-${n}`)) });
  }
  return out;
}
