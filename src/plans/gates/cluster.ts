/** Cluster-level kinds that a batch applies first: CRDs (their custom resources need them established) and Namespaces. */
import type { KubeObject } from '../../kube/object.js';
import { condition, str, why } from './fields.js';
import { done, failed, waiting, type GateResult } from './types.js';

export function crdGate(obj: KubeObject): GateResult {
  const names = condition(obj, 'NamesAccepted');
  if (names?.status === 'False') return failed('NamesNotAccepted', `names not accepted${why(names)}`);
  const established = condition(obj, 'Established');
  if (established?.status === 'True') return done('established');
  return waiting(`waiting to be established${why(established)}`);
}

export function namespaceGate(obj: KubeObject): GateResult {
  const phase = str(obj, 'status.phase');
  if (phase === 'Active') return done('active');
  if (phase === 'Terminating') return waiting('namespace is terminating; it must be gone before it can be recreated');
  return waiting(`namespace phase ${phase ?? 'not reported yet'}`);
}
