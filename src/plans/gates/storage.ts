/**
 * PersistentVolumeClaims. A claim whose storage class binds on first consumer stays Pending until a
 * pod using it is scheduled; if that pod is in the same batch, waiting for the claim first would
 * deadlock the batch, so such a claim counts as done once it has a consumer in the batch.
 */
import { isRecord, type KubeObject } from '../../kube/object.js';
import { at, list, str } from './fields.js';
import { done, failed, waiting, type GateContext, type GateResult } from './types.js';

const SELECTED_NODE = 'volume.kubernetes.io/selected-node';

export function pvcGate(obj: KubeObject, ctx: GateContext): GateResult {
  const phase = str(obj, 'status.phase');
  if (phase === 'Bound') return done(`bound to volume ${str(obj, 'spec.volumeName') ?? '(unnamed)'}`);
  if (phase === 'Lost') return failed('ClaimLost', 'claim lost its volume');
  const className = str(obj, 'spec.storageClassName');
  const lateBinding = bindsOnFirstConsumer(className, ctx.batch) || obj.metadata.annotations?.[SELECTED_NODE] === undefined;
  const consumer = ctx.batch.find((o) => consumes(o, obj));
  if (lateBinding && consumer) {
    return done(`Pending until its consumer is scheduled (${consumer.kind} ${consumer.metadata.name ?? ''} is in this batch)`);
  }
  return waiting(`claim ${phase ?? 'Pending'}${className ? ` (storage class ${className})` : ''}`);
}

function bindsOnFirstConsumer(className: string | undefined, batch: KubeObject[]): boolean {
  if (className === undefined) return false;
  return batch.some((o) => o.kind === 'StorageClass' && o.metadata.name === className && o.volumeBindingMode === 'WaitForFirstConsumer');
}

/** The pod spec a workload stamps out (Pod: its own). */
function podSpecOf(obj: KubeObject): unknown {
  switch (obj.kind) {
    case 'Pod':
      return obj.spec;
    case 'CronJob':
      return at(obj, 'spec.jobTemplate.spec.template.spec');
    default:
      return at(obj, 'spec.template.spec');
  }
}

function consumes(candidate: KubeObject, claim: KubeObject): boolean {
  const ns = claim.metadata.namespace;
  if (candidate.metadata.namespace !== ns) return false;
  const name = claim.metadata.name ?? '';
  const uses = list(podSpecOf(candidate), 'volumes').some((v) => isRecord(v) && str(v, 'persistentVolumeClaim.claimName') === name);
  if (uses) return true;
  if (candidate.kind !== 'StatefulSet') return false;
  // Claims from volumeClaimTemplates are named <template>-<statefulset>-<ordinal>.
  return list(candidate, 'spec.volumeClaimTemplates').some((t) => {
    const prefix = `${str(t, 'metadata.name') ?? ''}-${candidate.metadata.name ?? ''}-`;
    return name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length));
  });
}
