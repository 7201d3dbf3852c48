/**
 * The Deployment controller: owns ReplicaSets (pod-template-hash, revision annotations, controller
 * ownerReferences), rolls them per strategy, prunes history and reports status, one step per pass.
 */
import type { KubeObject } from '../../../kube/object.js';
import type { Controller, ControllerContext } from '../runtime/controller.js';
import { controllerRef, isControlledBy, nameOf, ownerKeyOf } from '../runtime/meta.js';
import { findNewReplicaSet, historyToDelete, nextStep, REVISION, revisionOf, type RolloutStep } from './plan.js';
import { deploymentStatus } from './status.js';

export function deploymentController(): Controller {
  const lastProgress = new Map<string, number>();

  async function execute(step: RolloutStep, deploy: KubeObject, ctx: ControllerContext): Promise<boolean> {
    switch (step.kind) {
      case 'none':
        return false;
      case 'create':
        await ctx.api.create(step.rs);
        ctx.events.emit(deploy, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${nameOf(step.rs)} from 0 to ${String((step.rs.spec as { replicas: number }).replicas)}`, 'deployment-controller');
        return true;
      case 'scale': {
        const from = Number((step.rs.spec as { replicas?: number } | undefined)?.replicas ?? 0);
        await ctx.api.patch(step.rs, { spec: { replicas: step.replicas }, metadata: { annotations: { 'deployment.kubernetes.io/desired-replicas': String((deploy.spec as { replicas?: number }).replicas ?? 1) } } });
        const verb = step.replicas > from ? 'up' : 'down';
        ctx.events.emit(deploy, 'Normal', 'ScalingReplicaSet', `Scaled ${verb} replica set ${nameOf(step.rs)} from ${from} to ${step.replicas}`, 'deployment-controller');
        return true;
      }
      case 'set-revision':
        await ctx.api.patch(step.rs, { metadata: { annotations: { [REVISION]: String(step.revision) } } });
        return true;
      case 'delete':
        await ctx.api.delete(step.rs);
        return true;
    }
  }

  return {
    name: 'deployment',
    kind: 'Deployment',
    watches: [{ kind: 'ReplicaSet', keys: ownerKeyOf('Deployment') }],
    forget(deploy) {
      lastProgress.delete(deploy.metadata.uid ?? '');
    },
    async reconcile(key, ctx) {
      const deploy = ctx.informer('Deployment').get(key);
      if (!deploy || deploy.metadata.deletionTimestamp !== undefined) return undefined;
      const owned = ctx.informer('ReplicaSet').list(deploy.metadata.namespace).filter((rs) => isControlledBy(rs, deploy));
      const newRS = findNewReplicaSet(deploy, owned);
      const old = owned.filter((rs) => rs !== newRS);
      const step = nextStep(deploy, newRS, old, controllerRef(deploy));
      const acted = await execute(step, deploy, ctx);
      for (const rs of historyToDelete(deploy, old)) await ctx.api.delete(rs);

      const current = ctx.informer('Deployment').get(key) ?? deploy;
      const all = ctx.informer('ReplicaSet').list(deploy.metadata.namespace).filter((rs) => isControlledBy(rs, deploy));
      const fresh = findNewReplicaSet(current, all);
      const now = ctx.clock.now();
      const uid = deploy.metadata.uid ?? key;
      const result = deploymentStatus({ deploy: current, newRS: fresh, all, now, lastProgressAt: lastProgress.get(uid), created: step.kind === 'create' });
      if (result.progressed || acted) lastProgress.set(uid, now);
      const revision = fresh ? String(revisionOf(fresh)) : undefined;
      if (revision !== undefined && current.metadata.annotations?.[REVISION] !== revision) {
        await ctx.api.patch(current, { metadata: { annotations: { [REVISION]: revision } } });
      }
      await ctx.api.patchStatus(ctx.informer('Deployment').get(key) ?? current, result.status);
      if (result.complete) return undefined;
      return result.deadlineInMs !== undefined ? { requeueAfterMs: result.deadlineInMs + 10 } : undefined;
    },
  };
}
