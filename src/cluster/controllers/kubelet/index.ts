/**
 * The simulated kubelet (and scheduler): places pods on the simulated nodes, then reports their
 * status as it would evolve on a real node (see stage.ts), with Events. Pods of a terminating
 * deletion are finished off (grace period 0), as a kubelet confirms a container stopped.
 */
import type { KubeObject } from '../../../kube/object.js';
import type { Controller, ControllerContext, ReconcileResult } from '../runtime/controller.js';
import { nameOf, record, records, spec, status, str } from '../runtime/meta.js';
import { failureOf, podTiming, SIM_FAIL } from '../sim.js';
import { podStatus, stageEvents, unschedulableStatus, type Placement } from './pod-status.js';
import { podStage, type PodStage } from './stage.js';
import { pickNode, nodeAddress } from './nodes.js';
import { isNodeDown, notReadyOnLostNode, podsOnNode } from './lifecycle.js';

interface PodLife extends Placement {
  lastStage?: PodStage['kind'];
  restarts: number;
}

export function claimNames(pod: KubeObject): string[] {
  return records(spec(pod).volumes)
    .map((v) => str(record(v.persistentVolumeClaim).claimName))
    .filter((n): n is string => n !== undefined);
}

export function kubeletController(): Controller {
  const lives = new Map<string, PodLife>();
  const nextIp = new Map<string, number>();

  function allocateIp(nodeIndex: number): string {
    const n = (nextIp.get(String(nodeIndex)) ?? 1) + 1;
    nextIp.set(String(nodeIndex), n);
    return `10.244.${nodeIndex}.${n % 254 || 254}`;
  }

  async function place(pod: KubeObject, ctx: ControllerContext): Promise<PodLife | undefined> {
    const nodes = ctx.informer('Node').list();
    const assigned = str(spec(pod).nodeName);
    const node = assigned !== undefined ? nodes.find((n) => nameOf(n) === assigned) : pickNode(nodes, ctx.informer('Pod').list());
    if (!node) return undefined;
    const nodeName = nameOf(node);
    const index = Math.max(0, [...nodes].sort((a, b) => nameOf(a).localeCompare(nameOf(b))).indexOf(node));
    const timing = podTiming(pod, ctx.timing);
    const phase = str(status(pod).phase);
    // Taking over a pod that already runs (controllers restarted): it is as far along as it says.
    const now = ctx.clock.now();
    const scheduledAt = phase === 'Running' ? now - timing.startMs - timing.readyMs : now;
    const life: PodLife = { nodeName, hostIP: nodeAddress(node), podIP: str(status(pod).podIP) ?? allocateIp(index + 1), scheduledAt, restarts: 0 };
    if (phase === 'Running') life.lastStage = 'running';
    if (assigned === undefined) await ctx.api.patch(pod, { spec: { nodeName } }, 'kube-scheduler');
    return life;
  }

  async function reconcile(key: string, ctx: ControllerContext): Promise<ReconcileResult | undefined> {
    const pod = ctx.informer('Pod').get(key);
    if (!pod) return undefined;
    if (pod.metadata.deletionTimestamp !== undefined) {
      await ctx.api.delete(pod, 0);
      return undefined;
    }
    const phase = str(status(pod).phase);
    if (phase === 'Succeeded' || phase === 'Failed') return undefined;
    const nodeName = str(spec(pod).nodeName);
    if (nodeName !== undefined && isNodeDown(ctx.informer('Node').get(nodeName))) return lostNode(pod, ctx);
    const uid = pod.metadata.uid ?? key;
    const failure = failureOf(pod);
    const nodes = ctx.informer('Node').list().length;
    const unbound = unboundClaims(pod, ctx);
    let life = lives.get(uid);
    if (!life && (failure === 'pending' || unbound.length > 0 || nodes === 0)) return reportUnschedulable(pod, ctx, nodes, unbound.length > 0);
    life ??= await place(pod, ctx);
    if (!life) return { requeueAfterMs: 500 };
    lives.set(uid, life);

    const restartPolicy = str(spec(pod).restartPolicy) ?? 'Always';
    const { stage, nextInMs } = podStage({ scheduledAt: life.scheduledAt, now: ctx.clock.now(), timing: podTiming(pod, ctx.timing), failure, runsToCompletion: restartPolicy !== 'Always' });
    const failAllImages = pod.metadata.annotations?.[SIM_FAIL] === 'image-pull';
    const fresh = ctx.informer('Pod').get(key) ?? pod;
    await ctx.api.patchStatus(fresh, podStatus(fresh, stage, life, failAllImages));
    const restarts = stage.kind === 'crash-loop' ? stage.restarts : 0;
    if (stage.kind !== life.lastStage || restarts > life.restarts) {
      for (const e of stageEvents(pod, life.lastStage, stage, life.nodeName, failAllImages, nodes)) ctx.events.emit(pod, e.type, e.reason, e.message, e.component);
    }
    life.lastStage = stage.kind;
    life.restarts = restarts;
    return nextInMs === undefined ? undefined : { requeueAfterMs: nextInMs };
  }

  return {
    name: 'kubelet',
    kind: 'Pod',
    fieldManager: 'kubelet',
    workers: 4,
    watches: [
      // A claim that binds lets the pods that wait for it start.
      { kind: 'PersistentVolumeClaim', keys: (pvc, ctx) => podsUsingClaim(pvc, ctx) },
      { kind: 'Node', keys: (node, ctx) => [...ctx.informer('Pod').list().filter((p) => str(spec(p).nodeName) === undefined).map((p) => `${p.metadata.namespace ?? ''}/${nameOf(p)}`), ...podsOnNode(node, ctx)] },
    ],
    reconcile,
    forget(pod) {
      lives.delete(pod.metadata.uid ?? '');
    },
  };
}

/** Nothing reports for a pod on a stopped node: the node controller marks it not Ready, once. */
async function lostNode(pod: KubeObject, ctx: ControllerContext): Promise<undefined> {
  const ready = records(status(pod).conditions).find((c) => c.type === 'Ready');
  if (ready?.status === 'False') return undefined;
  await ctx.api.patchStatus(pod, notReadyOnLostNode(pod, ctx.clock.now()));
  ctx.events.emit(pod, 'Warning', 'NodeNotReady', 'Node is not ready', 'node-controller');
  return undefined;
}

function unboundClaims(pod: KubeObject, ctx: ControllerContext): string[] {
  const ns = pod.metadata.namespace ?? '';
  return claimNames(pod).filter((claim) => {
    const pvc = ctx.informer('PersistentVolumeClaim').get(`${ns}/${claim}`);
    return !pvc || str(status(pvc).phase) !== 'Bound';
  });
}

/** Pending with PodScheduled=False and a FailedScheduling event, written once per distinct reason. */
async function reportUnschedulable(pod: KubeObject, ctx: ControllerContext, nodes: number, waitsForClaims: boolean): Promise<ReconcileResult | undefined> {
  const next = unschedulableStatus(pod, nodes, ctx.clock.now());
  const [condition] = records(next.conditions);
  if (condition && waitsForClaims) {
    condition.message = `0/${nodes} nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/${nodes} nodes are available.`;
  }
  const current = records(status(pod).conditions).find((c) => c.type === 'PodScheduled');
  if (current?.status === 'False' && current.message === condition?.message) return undefined;
  await ctx.api.patchStatus(pod, next);
  ctx.events.emit(pod, 'Warning', 'FailedScheduling', String(condition?.message), 'default-scheduler');
  return nodes === 0 ? { requeueAfterMs: 500 } : undefined;
}

function podsUsingClaim(pvc: KubeObject, ctx: ControllerContext): string[] {
  const ns = pvc.metadata.namespace ?? '';
  return ctx
    .informer('Pod')
    .list(ns)
    .filter((p) => claimNames(p).includes(nameOf(pvc)))
    .map((p) => `${ns}/${nameOf(p)}`);
}
