/**
 * A simple HorizontalPodAutoscaler controller (autoscaling/v2). There is no metrics API: the load a
 * test wants the autoscaler to see is declared on the HPA with `sim.baton.dev/cpu-load: "<percent>"`,
 * the CPU in use as a percentage of one pod's request, summed over the pods (`250` is two and a half
 * pods' worth). The pods' average utilization is that load over the current replicas, and the desired
 * replicas follow the real formula `ceil(current * utilization / target)` (with its 10% tolerance) for
 * the first Resource metric with an averageUtilization target, within minReplicas..maxReplicas; the
 * target is scaled through its `scale` subresource (SuccessfulRescale event). Without the annotation
 * the replicas are only kept within the bounds and ScalingActive is False (FailedGetResourceMetric),
 * as a real HPA without metrics reports.
 */
import type { KubeObject } from '../../kube/object.js';
import type { Controller, ControllerContext } from './runtime/controller.js';
import { type Condition, nameOf, num, record, records, setCondition, spec, status, str } from './runtime/meta.js';
import type { KindName } from './runtime/kinds.js';

export const SIM_CPU_LOAD = 'sim.baton.dev/cpu-load';

const TARGET_KINDS: Record<string, KindName> = { Deployment: 'Deployment', StatefulSet: 'StatefulSet', ReplicaSet: 'ReplicaSet' };

export interface HpaDecision {
  desired: number;
  reason: string;
  utilization?: number;
  target?: number;
}

/** The replicas an HPA wants, from its spec, the current replicas and the declared load. */
export function desiredReplicas(hpa: KubeObject, current: number, load: number | undefined): HpaDecision {
  const utilization = load !== undefined && current > 0 ? Math.round(load / current) : undefined;
  const min = num(spec(hpa).minReplicas, 1);
  const max = num(spec(hpa).maxReplicas, Math.max(min, current));
  const metric = records(spec(hpa).metrics).find((m) => m.type === 'Resource' && typeof record(record(m.resource).target).averageUtilization === 'number');
  const target = metric ? num(record(record(metric.resource).target).averageUtilization, 80) : undefined;
  let desired = current;
  let reason = 'within bounds';
  if (utilization !== undefined && target !== undefined && target > 0 && current > 0) {
    const ratio = utilization / target;
    // The real controller tolerates 10% around the target before it acts.
    if (Math.abs(ratio - 1) > 0.1) {
      desired = Math.ceil(current * ratio);
      reason = `${str(record(metric?.resource).name) ?? 'cpu'} resource utilization (percentage of request) ${ratio > 1 ? 'above' : 'below'} target`;
    }
  }
  if (desired > max) [desired, reason] = [max, reason === 'within bounds' ? 'Current number of replicas above Spec.MaxReplicas' : reason];
  if (desired < min) [desired, reason] = [min, reason === 'within bounds' ? 'Current number of replicas below Spec.MinReplicas' : reason];
  return { desired, reason, ...(utilization !== undefined ? { utilization } : {}), ...(target !== undefined ? { target } : {}) };
}

function targetOf(hpa: KubeObject, ctx: ControllerContext): KubeObject | undefined {
  const ref = record(spec(hpa).scaleTargetRef);
  const kind = TARGET_KINDS[str(ref.kind) ?? ''];
  return kind ? ctx.informer(kind).get(`${hpa.metadata.namespace ?? ''}/${str(ref.name) ?? ''}`) : undefined;
}

export function hpaController(): Controller {
  return {
    name: 'horizontal-pod-autoscaler',
    kind: 'HorizontalPodAutoscaler',
    watches: (['Deployment', 'StatefulSet', 'ReplicaSet'] as const).map((kind) => ({
      kind,
      keys: (obj: KubeObject, ctx: ControllerContext) => ctx.informer('HorizontalPodAutoscaler').list(obj.metadata.namespace)
        .filter((h) => str(record(spec(h).scaleTargetRef).kind) === kind && str(record(spec(h).scaleTargetRef).name) === nameOf(obj))
        .map((h) => `${h.metadata.namespace ?? ''}/${nameOf(h)}`),
    })),
    async reconcile(key, ctx) {
      const hpa = ctx.informer('HorizontalPodAutoscaler').get(key);
      if (!hpa || hpa.metadata.deletionTimestamp !== undefined) return undefined;
      const now = ctx.clock.now();
      let conditions = records(status(hpa).conditions) as unknown as Condition[];
      const target = targetOf(hpa, ctx);
      const ref = record(spec(hpa).scaleTargetRef);
      if (!target) {
        conditions = setCondition(conditions, { type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message: `the HPA controller was unable to get the target's current scale: ${str(ref.kind)?.toLowerCase() ?? ''}s "${str(ref.name) ?? ''}" not found` }, now);
        await ctx.api.patchStatus(hpa, { ...status(hpa), conditions, currentReplicas: 0, desiredReplicas: 0 });
        return { requeueAfterMs: 15_000 };
      }
      const current = num(spec(target).replicas, 1);
      const raw = hpa.metadata.annotations?.[SIM_CPU_LOAD];
      const load = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
      const decision = desiredReplicas(hpa, current, load);
      const utilization = decision.utilization;
      const next: Record<string, unknown> = { ...status(hpa), observedGeneration: hpa.metadata.generation ?? 1, currentReplicas: current, desiredReplicas: decision.desired };
      if (decision.desired !== current) {
        await ctx.client.patch({ apiVersion: target.apiVersion, kind: target.kind, namespace: target.metadata.namespace ?? 'default', name: nameOf(target) }, { spec: { replicas: decision.desired } }, 'merge', { subresource: 'scale' });
        ctx.events.emit(hpa, 'Normal', 'SuccessfulRescale', `New size: ${decision.desired}; reason: ${decision.reason}`, 'horizontal-pod-autoscaler');
        next.lastScaleTime = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
      }
      conditions = setCondition(conditions, { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: 'the HPA controller was able to get the target\'s current scale' }, now);
      if (utilization === undefined) {
        conditions = setCondition(conditions, { type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric', message: 'the HPA was unable to compute the replica count: failed to get cpu utilization: no metrics in the simulated cluster (declare sim.baton.dev/cpu-load on the HPA)' }, now);
        delete next.currentMetrics;
      } else {
        conditions = setCondition(conditions, { type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' }, now);
        next.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: utilization } } }];
      }
      const limited = decision.desired === num(spec(hpa).maxReplicas, decision.desired) || decision.desired === num(spec(hpa).minReplicas, 1);
      conditions = setCondition(conditions, limited
        ? { type: 'ScalingLimited', status: 'True', reason: decision.desired === num(spec(hpa).minReplicas, 1) ? 'TooFewReplicas' : 'TooManyReplicas', message: 'the desired replica count is at a bound' }
        : { type: 'ScalingLimited', status: 'False', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' }, now);
      next.conditions = conditions;
      await ctx.api.patchStatus(hpa, next);
      return undefined;
    },
  };
}
