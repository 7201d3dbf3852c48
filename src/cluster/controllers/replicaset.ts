/**
 * The ReplicaSet controller: keeps `spec.replicas` active pods from the template, deleting the least
 * useful first, and reports counts with the generation it observed.
 */
import type { KubeObject } from '../../kube/object.js';
import type { Controller } from './runtime/controller.js';
import { nameOf, num, ownerKeyOf, randomSuffix, record, spec, status } from './runtime/meta.js';
import { deletionOrder, isActive, isAvailable, isReady, ownedPods, podFromTemplate } from './runtime/pods.js';
import { selectorFrom } from './runtime/selector.js';

export interface ReplicaSetPlan {
  create: number;
  delete: KubeObject[];
  status: Record<string, unknown>;
}

/** Pure: what the controller does for one ReplicaSet given the pods it owns. */
export function planReplicaSet(rs: KubeObject, owned: KubeObject[], now: number): ReplicaSetPlan {
  const desired = num(spec(rs).replicas, 1);
  const active = owned.filter(isActive);
  const diff = active.length - desired;
  const doomed = diff > 0 ? [...active].sort(deletionOrder).slice(0, diff) : [];
  const minReady = num(spec(rs).minReadySeconds, 0);
  const matches = selectorFrom(record(record(spec(rs).template).metadata).labels === undefined ? {} : { matchLabels: record(record(spec(rs).template).metadata).labels });
  const next: Record<string, unknown> = {
    replicas: active.length,
    fullyLabeledReplicas: active.filter((p) => matches(p.metadata.labels)).length,
    readyReplicas: active.filter(isReady).length,
    availableReplicas: active.filter((p) => isAvailable(p, minReady, now)).length,
    observedGeneration: rs.metadata.generation ?? 1,
  };
  const conditions = status(rs).conditions;
  if (conditions !== undefined) next.conditions = conditions;
  return { create: Math.max(0, -diff), delete: doomed, status: next };
}

export function replicaSetController(): Controller {
  return {
    name: 'replicaset',
    kind: 'ReplicaSet',
    workers: 2,
    watches: [{ kind: 'Pod', keys: ownerKeyOf('ReplicaSet') }],
    async reconcile(key, ctx) {
      const rs = ctx.informer('ReplicaSet').get(key);
      if (!rs || rs.metadata.deletionTimestamp !== undefined) return undefined;
      const pods = ownedPods(rs, ctx.informer('Pod').list(rs.metadata.namespace));
      const plan = planReplicaSet(rs, pods, ctx.clock.now());
      const template = spec(rs).template;
      const names = Array.from({ length: plan.create }, () => `${nameOf(rs)}-${randomSuffix()}`);
      const creates = names.map((name) => ctx.api.create(podFromTemplate(rs, template, name)));
      const deletes = plan.delete.map((p) => ctx.api.delete(p));
      await Promise.all([...creates, ...deletes]);
      for (const name of names) ctx.events.emit(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${name}`, 'replicaset-controller');
      for (const p of plan.delete) ctx.events.emit(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${nameOf(p)}`, 'replicaset-controller');
      if (plan.create > 0 || plan.delete.length > 0) {
        // Counts come from the cache the writes just updated: report them on the next pass.
        return { requeueAfterMs: 0 };
      }
      await ctx.api.patchStatus(rs, plan.status);
      // availableReplicas with minReadySeconds changes with time alone.
      return num(spec(rs).minReadySeconds, 0) > 0 && plan.status.availableReplicas !== plan.status.readyReplicas ? { requeueAfterMs: 1000 } : undefined;
    },
  };
}
