/**
 * Rollout gates of the apps/v1 workloads, following `kubectl rollout status`: the controller has
 * observed the latest generation, every replica runs the new template, and enough are available.
 */
import type { KubeObject } from '../../kube/object.js';
import { at, condition, num, str, unobserved, why } from './fields.js';
import { done, failed, waiting, type GateResult } from './types.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function deploymentGate(obj: KubeObject): GateResult {
  const stale = unobserved(obj);
  if (stale) return waiting(stale);
  const progressing = condition(obj, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return failed('ProgressDeadlineExceeded', `rollout exceeded its progress deadline${why(progressing)}`);
  }
  const want = num(obj, 'spec.replicas', 1);
  const updated = num(obj, 'status.updatedReplicas');
  const total = num(obj, 'status.replicas');
  // A paused rollout never progresses on its own: say so rather than count replicas that will not move.
  if (at(obj, 'spec.paused') === true && updated < want) return waiting(`rollout is paused (spec.paused), ${updated}/${want} replicas updated`);
  const available = num(obj, 'status.availableReplicas');
  if (updated < want) return waiting(`${updated}/${want} replicas updated`);
  if (total > updated) return waiting(`${plural(total - updated, 'old replica')} pending termination (${updated}/${want} updated)`);
  if (available < updated) return waiting(`${available}/${want} replicas available`);
  return done(`${available}/${want} replicas available`);
}

export function replicaSetGate(obj: KubeObject): GateResult {
  const stale = unobserved(obj);
  if (stale) return waiting(stale);
  const want = num(obj, 'spec.replicas', 1);
  const ready = num(obj, 'status.readyReplicas');
  const available = num(obj, 'status.availableReplicas');
  if (ready < want) return waiting(`${ready}/${want} replicas ready`);
  if (available < want) return waiting(`${available}/${want} replicas available`);
  return done(`${available}/${want} replicas available`);
}

export function statefulSetGate(obj: KubeObject): GateResult {
  const stale = unobserved(obj);
  if (stale) return waiting(stale);
  const want = num(obj, 'spec.replicas', 1);
  const ready = num(obj, 'status.readyReplicas');
  const updated = num(obj, 'status.updatedReplicas');
  if (str(obj, 'spec.updateStrategy.type') === 'OnDelete') {
    // Pods change only when deleted by hand: readiness is all a rollout can promise.
    return ready < want ? waiting(`${ready}/${want} replicas ready (OnDelete strategy)`) : done(`${ready}/${want} replicas ready (OnDelete strategy)`);
  }
  if (ready < want) return waiting(`${ready}/${want} replicas ready`);
  const partition = num(obj, 'spec.updateStrategy.rollingUpdate.partition');
  if (partition > 0) {
    // Only ordinals >= partition are updated; the rest keep the old revision by design.
    const target = Math.max(0, want - partition);
    if (updated < target) return waiting(`${updated}/${target} replicas above partition ${partition} updated`);
    return done(`${ready}/${want} replicas ready, ${target} above partition ${partition} updated`);
  }
  const current = str(obj, 'status.currentRevision');
  const update = str(obj, 'status.updateRevision');
  if (update !== undefined && current !== update) {
    return waiting(`${updated}/${want} replicas updated to revision ${update}`);
  }
  return done(`${ready}/${want} replicas ready`);
}

export function daemonSetGate(obj: KubeObject): GateResult {
  const stale = unobserved(obj);
  if (stale) return waiting(stale);
  const desired = num(obj, 'status.desiredNumberScheduled');
  const updated = num(obj, 'status.updatedNumberScheduled');
  const available = num(obj, 'status.numberAvailable');
  const onDelete = str(obj, 'spec.updateStrategy.type') === 'OnDelete';
  if (!onDelete && updated < desired) return waiting(`${updated}/${desired} updated pods scheduled`);
  if (available < desired) return waiting(`${available}/${desired} pods available`);
  return done(`${available}/${desired} pods available`);
}
