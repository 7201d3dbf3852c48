/**
 * The DaemonSet controller: one pod per schedulable node (matching the template's nodeSelector),
 * rolling updates within maxUnavailable (not-ready old pods first), and the status fields
 * `kubectl rollout status daemonset` reads.
 */
import type { KubeObject } from '../../kube/object.js';
import type { Controller } from './runtime/controller.js';
import { isControlledBy, nameOf, num, ownerKeyOf, randomSuffix, record, scaledValue, spec, stableHash, str } from './runtime/meta.js';
import { isActive, isAvailable, isReady, podFromTemplate } from './runtime/pods.js';
import { isSchedulable } from './kubelet/nodes.js';
import { ensureRevision } from './runtime/revisions.js';

export const DS_HASH_LABEL = 'controller-revision-hash';

export type DaemonStep = { kind: 'create'; node: string } | { kind: 'delete'; pod: KubeObject };

export interface DaemonPlan {
  steps: DaemonStep[];
  status: Record<string, unknown>;
}

function fitsNode(ds: KubeObject, node: KubeObject): boolean {
  const selector = record(record(record(spec(ds).template).spec).nodeSelector);
  return isSchedulable(node) && Object.entries(selector).every(([k, v]) => node.metadata.labels?.[k] === v);
}

/** Pure: steps and status for one DaemonSet, its pods and the nodes. */
export function planDaemonSet(ds: KubeObject, pods: KubeObject[], nodes: KubeObject[], now: number): DaemonPlan {
  const hash = stableHash(record(spec(ds).template)).slice(0, 10);
  const wanted = nodes.filter((n) => fitsNode(ds, n)).map(nameOf).sort();
  const active = pods.filter(isActive);
  const byNode = new Map<string, KubeObject[]>();
  for (const pod of active) {
    const node = str(spec(pod).nodeName) ?? '';
    byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  }
  const steps: DaemonStep[] = [];
  const minReady = num(spec(ds).minReadySeconds, 0);
  for (const [node, list] of byNode) {
    if (!wanted.includes(node)) for (const pod of list) steps.push({ kind: 'delete', pod });
    else for (const pod of list.slice(1)) steps.push({ kind: 'delete', pod });
  }
  for (const node of wanted) if (!byNode.has(node)) steps.push({ kind: 'create', node });

  const strategy = record(spec(ds).updateStrategy);
  if (str(strategy.type) !== 'OnDelete') {
    const maxUnavailable = Math.max(1, scaledValue(record(strategy.rollingUpdate).maxUnavailable, wanted.length, 1, false));
    const current = wanted.map((n) => byNode.get(n)?.[0]).filter((p): p is KubeObject => p !== undefined);
    const unavailable = wanted.length - current.filter((p) => isAvailable(p, minReady, now)).length;
    const old = current.filter((p) => p.metadata.labels?.[DS_HASH_LABEL] !== hash).sort((a, b) => Number(isReady(a)) - Number(isReady(b)));
    // Old pods that are not available are free to go; available ones only within the budget.
    let budget = maxUnavailable - unavailable;
    for (const pod of old) {
      if (!isAvailable(pod, minReady, now)) steps.push({ kind: 'delete', pod });
      else if (budget-- > 0) steps.push({ kind: 'delete', pod });
    }
  }

  const scheduled = wanted.filter((n) => byNode.has(n));
  const podsOnWanted = scheduled.map((n) => byNode.get(n)?.[0]).filter((p): p is KubeObject => p !== undefined);
  const available = podsOnWanted.filter((p) => isAvailable(p, minReady, now)).length;
  const status: Record<string, unknown> = {
    observedGeneration: ds.metadata.generation ?? 1,
    desiredNumberScheduled: wanted.length,
    currentNumberScheduled: scheduled.length,
    numberMisscheduled: [...byNode.keys()].filter((n) => !wanted.includes(n)).length,
    numberReady: podsOnWanted.filter(isReady).length,
    numberAvailable: available,
    updatedNumberScheduled: podsOnWanted.filter((p) => p.metadata.labels?.[DS_HASH_LABEL] === hash).length,
  };
  if (wanted.length - available > 0) status.numberUnavailable = wanted.length - available;
  return { steps, status };
}

export function daemonSetController(): Controller {
  return {
    name: 'daemonset',
    kind: 'DaemonSet',
    watches: [
      { kind: 'Pod', keys: ownerKeyOf('DaemonSet') },
      { kind: 'ControllerRevision', keys: ownerKeyOf('DaemonSet') },
      { kind: 'Node', keys: (_n, ctx) => ctx.informer('DaemonSet').list().map((ds) => `${ds.metadata.namespace ?? ''}/${nameOf(ds)}`) },
    ],
    async reconcile(key, ctx) {
      const ds = ctx.informer('DaemonSet').get(key);
      if (!ds || ds.metadata.deletionTimestamp !== undefined) return undefined;
      const pods = ctx.informer('Pod').list(ds.metadata.namespace).filter((p) => isControlledBy(p, ds));
      const plan = planDaemonSet(ds, pods, ctx.informer('Node').list(), ctx.clock.now());
      const hash = stableHash(record(spec(ds).template)).slice(0, 10);
      // Revisions make `kubectl rollout history/undo daemonset` work.
      await ensureRevision(ds, `${nameOf(ds)}-${hash}`, ctx, hash);
      for (const step of plan.steps) {
        if (step.kind === 'create') {
          const name = `${nameOf(ds)}-${randomSuffix()}`;
          const labels = { [DS_HASH_LABEL]: hash, 'pod-template-generation': String(ds.metadata.generation ?? 1) };
          await ctx.api.create(podFromTemplate(ds, spec(ds).template, name, labels, { nodeName: step.node }));
          ctx.events.emit(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${name}`, 'daemonset-controller');
        } else {
          await ctx.api.delete(step.pod);
          ctx.events.emit(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${nameOf(step.pod)}`, 'daemonset-controller');
        }
      }
      if (plan.steps.length > 0) return { requeueAfterMs: 0 };
      await ctx.api.patchStatus(ds, plan.status);
      return undefined;
    },
  };
}
