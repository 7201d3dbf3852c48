/**
 * Custom resources by the kstatus conventions (sigs.k8s.io/cli-utils/pkg/kstatus): a stale
 * observedGeneration or Reconciling=True is in progress, Stalled=True is failed, Ready decides when
 * present; an object with none of these is ready once applied.
 */
import type { KubeObject } from '../../kube/object.js';
import { condition, conditions, staleGeneration, why } from './fields.js';
import { done, failed, waiting, type GateResult } from './types.js';

export function kstatusGate(obj: KubeObject): GateResult {
  const stale = staleGeneration(obj);
  if (stale) return waiting(stale);
  const stalled = condition(obj, 'Stalled');
  if (stalled?.status === 'True') return failed('Stalled', `stalled${why(stalled)}`);
  const reconciling = condition(obj, 'Reconciling');
  if (reconciling?.status === 'True') return waiting(`reconciling${why(reconciling)}`);
  const ready = condition(obj, 'Ready');
  if (ready !== undefined) {
    const generation = obj.metadata.generation;
    if (ready.observedGeneration !== undefined && generation !== undefined && ready.observedGeneration < generation) {
      return waiting(`Ready condition is for generation ${ready.observedGeneration}, not ${generation}`);
    }
    return ready.status === 'True' ? done(`Ready${why(ready)}`) : waiting(`not Ready${why(ready)}`);
  }
  if (conditions(obj).length === 0) return done(`no readiness rule applies to ${obj.kind}; ready once applied`);
  return done('no Ready, Reconciling or Stalled condition; ready once applied');
}

/** Kinds that have no state to wait for: ready as soon as the API server accepted them. */
export function staticGate(obj: KubeObject): GateResult {
  return done(`${obj.kind} is ready once applied`);
}
