/**
 * What `restart` and `replace` do to one pod, in the cluster:
 *
 * - restart: the pod is deleted; its controller creates it again; done when it (a StatefulSet pod: the
 *   same name with a new uid; any other pod: its controller's readiness gate) is Ready.
 * - replace: the pod's own claims are deleted first (on a real cluster they stay Terminating, held by
 *   `kubernetes.io/pvc-protection`, until the pod is gone), then the pod; done when the pod is back,
 *   Ready, on claims with new uids (new storage). A pod recreated before its old claim was gone waits
 *   on a claim that is going away: it is deleted once more so the controller creates the claim anew.
 *
 * A pod whose node is not ready (or that is already terminating) is deleted with grace period 0: its
 * kubelet cannot confirm anything, and Kubernetes would otherwise keep it Terminating forever.
 */
import type { KubeClient } from '../kube/client.js';
import type { KubeObject, ObjectRef } from '../kube/object.js';
import type { Clock } from '../plans/clock.js';
import { classifyWith, type EngineHooks } from '../plans/hooks.js';
import { observedKey, waitFor, type Observed, type WaitVerdict } from '../plans/watch-wait.js';
import { isPodReady, type InstancePod } from './pods.js';

export type PodActionKind = 'restart' | 'replace';

export interface PodOpContext {
  client: KubeClient;
  hooks: EngineHooks;
  clock: Clock;
  /** Timeout and supersession: aborting stops the wait (the deletions already made stay made). */
  signal: AbortSignal;
  onWaiting(object: string, message: string): void;
}

export interface PodOpResult {
  /** The new pod's node, uid and claims (by name -> uid). */
  node?: string;
  uid: string;
  claims: Record<string, string>;
  /** What was deleted, for the record: `Pod ns/zk-1 (force)`, `PersistentVolumeClaim ns/data-zk-1`. */
  deleted: string[];
}

const podRef = (ns: string, name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name });
const claimRef = (ns: string, name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: ns, name });

export async function runPodOp(kind: PodActionKind, target: InstancePod, ctx: PodOpContext): Promise<PodOpResult> {
  const ns = target.pod.metadata.namespace ?? '';
  const deleted: string[] = [];
  const oldClaims = kind === 'replace' ? await deleteClaims(target, ctx, deleted) : new Map<string, string>();
  const force = target.notReady?.reason === 'node-not-ready' || target.notReady?.reason === 'terminating';
  await ctx.client.delete(podRef(ns, target.name), { preconditions: { uid: target.uid }, ...(force ? { gracePeriodSeconds: 0 } : {}) });
  deleted.push(`Pod ${ns}/${target.name}${force ? ' (grace period 0: its node is not ready)' : ''}`);

  const sameName = target.controller?.kind === 'StatefulSet';
  if (kind === 'replace' && sameName && oldClaims.size > 0) await reclaim(target, oldClaims, ctx);
  const verdict = await waitFor({
    client: ctx.client,
    refs: [podRef(ns, target.name), ...target.claims.map((c) => claimRef(ns, c)), ...(!sameName && target.controller ? [{ ...target.controller, namespace: ns }] : [])],
    ...(!sameName ? { context: [{ apiVersion: 'v1', kind: 'Pod', namespace: ns }] } : {}),
    evaluate: (observed, others) => (sameName ? statefulVerdict(target, observed, oldClaims) : controllerVerdict(target, observed, others, ctx)),
    onWaiting: (v) => ctx.onWaiting(v.object, v.message),
    signal: ctx.signal,
    clock: ctx.clock,
    isTransient: (err) => classifyWith(ctx.hooks, err).class === 'transient',
  });
  if (verdict.kind === 'failed') throw new Error(`${verdict.object}: ${verdict.message}`);
  const pod = sameName ? await ctx.client.get(podRef(ns, target.name)) : undefined;
  const claims: Record<string, string> = {};
  for (const c of target.claims) claims[c] = (await ctx.client.get(claimRef(ns, c)))?.metadata.uid ?? '';
  const node = pod ? nodeOf(pod) : undefined;
  return { uid: pod?.metadata.uid ?? '', claims, deleted, ...(node ? { node } : {}) };
}

/** Deletes the pod's own claims (by uid: a claim created meanwhile is not touched); returns name -> old uid. */
async function deleteClaims(target: InstancePod, ctx: PodOpContext, deleted: string[]): Promise<Map<string, string>> {
  const ns = target.pod.metadata.namespace ?? '';
  const old = new Map<string, string>();
  for (const name of target.claims) {
    const claim = await ctx.client.get(claimRef(ns, name));
    if (claim === undefined) continue;
    old.set(name, claim.metadata.uid ?? '');
    await ctx.client.delete(claimRef(ns, name), { preconditions: { uid: claim.metadata.uid ?? '' } });
    deleted.push(`PersistentVolumeClaim ${ns}/${name}`);
  }
  return old;
}

/**
 * Waits until the old claims are gone; a pod the controller created meanwhile on the old claim (which
 * cannot start: its claim is being deleted) is deleted once more, so it is created with a new claim.
 */
async function reclaim(target: InstancePod, oldClaims: ReadonlyMap<string, string>, ctx: PodOpContext): Promise<void> {
  const ns = target.pod.metadata.namespace ?? '';
  await waitFor({
    client: ctx.client,
    refs: [...oldClaims.keys()].map((c) => claimRef(ns, c)),
    evaluate: (observed): WaitVerdict => {
      for (const [name, uid] of oldClaims) {
        const live = observed.get(observedKey(claimRef(ns, name)));
        if (live?.metadata.uid === uid) return { kind: 'waiting', object: `PersistentVolumeClaim ${ns}/${name}`, message: 'the old claim is being deleted (it goes once no pod uses it)' };
      }
      return { kind: 'done' };
    },
    onWaiting: (v) => ctx.onWaiting(v.object, v.message),
    signal: ctx.signal,
    clock: ctx.clock,
    isTransient: (err) => classifyWith(ctx.hooks, err).class === 'transient',
  });
  const pod = await ctx.client.get(podRef(ns, target.name));
  if (pod === undefined || pod.metadata.uid === target.uid) return;
  const onOld = target.claims.some((c) => oldClaims.has(c)) && !isPodReady(pod) && pod.metadata.creationTimestamp !== undefined;
  if (!onOld) return;
  const claims = await Promise.all(target.claims.map((c) => ctx.client.get(claimRef(ns, c))));
  // The claim is missing (the controller saw the old one and did not create it): delete the pod again.
  if (claims.some((c) => c === undefined)) await ctx.client.delete(podRef(ns, target.name), { preconditions: { uid: pod.metadata.uid ?? '' } }).catch(() => undefined);
}

function statefulVerdict(target: InstancePod, observed: Observed, oldClaims: ReadonlyMap<string, string>): WaitVerdict {
  const ns = target.pod.metadata.namespace ?? '';
  const pod = observed.get(observedKey(podRef(ns, target.name)));
  const label = `Pod ${ns}/${target.name}`;
  if (pod === undefined) return { kind: 'waiting', object: label, message: 'deleted; waiting for its controller to create it again' };
  if (pod.metadata.uid === target.uid) return { kind: 'waiting', object: label, message: 'being deleted' };
  for (const c of target.claims) {
    const claim = observed.get(observedKey(claimRef(ns, c)));
    if (claim === undefined || claim.metadata.uid === oldClaims.get(c)) return { kind: 'waiting', object: `PersistentVolumeClaim ${ns}/${c}`, message: 'waiting for a new claim' };
    const phase = (claim['status'] as { phase?: string } | undefined)?.phase;
    if (phase !== 'Bound') return { kind: 'waiting', object: `PersistentVolumeClaim ${ns}/${c}`, message: `claim ${phase ?? 'Pending'}` };
  }
  if (!isPodReady(pod)) return { kind: 'waiting', object: label, message: `created again${nodeOf(pod) ? ` on node ${nodeOf(pod) ?? ''}` : ''}; not ready yet` };
  return { kind: 'done' };
}

/** A pod that comes back under another name: the old one gone, a new pod of its controller Ready, and the controller ready again. */
function controllerVerdict(target: InstancePod, observed: Observed, pods: readonly KubeObject[], ctx: PodOpContext): WaitVerdict {
  const ns = target.pod.metadata.namespace ?? '';
  const old = observed.get(observedKey(podRef(ns, target.name)));
  if (old?.metadata.uid === target.uid) return { kind: 'waiting', object: `Pod ${ns}/${target.name}`, message: 'being deleted' };
  if (!target.controller) return { kind: 'done' };
  const ref = { ...target.controller, namespace: ns };
  const owner = observed.get(observedKey(ref));
  const label = `${ref.kind} ${ns}/${ref.name}`;
  if (owner === undefined) return { kind: 'waiting', object: label, message: 'not found' };
  const successor = pods.find((p) => p.metadata.uid !== target.uid && (p.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === owner.metadata.uid) && isPodReady(p));
  if (successor === undefined) return { kind: 'waiting', object: label, message: 'waiting for a new pod to be ready' };
  const gate = ctx.hooks.gate(owner, { rules: [], now: new Date(ctx.clock.now()), imagePullGraceSeconds: 120, batch: [owner] });
  if (gate.state === 'failed') return { kind: 'failed', object: label, reason: gate.reason, message: gate.message };
  return gate.state === 'done' ? { kind: 'done' } : { kind: 'waiting', object: label, message: gate.message };
}

function nodeOf(pod: KubeObject): string | undefined {
  const spec = pod['spec'] as { nodeName?: unknown } | undefined;
  return typeof spec?.nodeName === 'string' ? spec.nodeName : undefined;
}
