/**
 * Admission, the steps a real API server runs between validating an object and storing it, for the
 * plugins a user meets: ServiceAccount (a pod's service account must exist), LimitRanger (defaults
 * and bounds), ResourceQuota (refusal past `hard`, usage kept in status), and the per-namespace
 * objects kube-controller-manager adds (`default` ServiceAccount, `kube-root-ca.crt`).
 */
import type { KubeObject } from '../../../kube/object.js';
import { isRecord } from '../../../kube/object.js';
import type { Core } from '../core.js';
import { forbidden } from '../errors.js';
import type { ResourceType } from '../types.js';
import { admitPodLimits } from './limitrange.js';
import { namespaceContent } from './namespace.js';
import { admitQuota, refreshQuotas } from './quota.js';

function admitServiceAccount(core: Core, type: ResourceType, pod: KubeObject): void {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const sa = typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '' ? spec.serviceAccountName : 'default';
  const ns = pod.metadata.namespace ?? '';
  if (core.find('/serviceaccounts', ns, sa)) return;
  throw forbidden(type, pod.metadata.name ?? '', `error looking up service account ${ns}/${sa}: serviceaccount "${sa}" not found`);
}

/** DefaultStorageClass: a claim that names no class gets the default one (an explicit "" stays classless). */
function defaultStorageClass(core: Core, pvc: KubeObject): void {
  const spec = isRecord(pvc.spec) ? pvc.spec : undefined;
  if (!spec || spec.storageClassName !== undefined) return;
  const classes = core.scan('storage.k8s.io/storageclasses', undefined);
  const def = classes.find((c) => c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
  if (def?.metadata.name) spec.storageClassName = def.metadata.name;
}

/** Mutating then validating admission of a create; throws the real 403 when a plugin refuses. */
export function admitCreate(core: Core, type: ResourceType, obj: KubeObject): void {
  if (type.schema !== undefined) {
    admitQuota(core, type, obj);
    return;
  }
  if (type.group === '' && type.kind === 'PersistentVolumeClaim') defaultStorageClass(core, obj);
  if (type.group === '' && type.kind === 'Pod') {
    admitServiceAccount(core, type, obj);
    admitPodLimits(core, type, obj);
  }
  if (type.namespaced) admitQuota(core, type, obj);
}

/** Runs after every committed change (the Core calls it): quota usage, a new namespace's content. */
export function afterCommit(core: Core, key: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
  if (key === '/namespaces') {
    if (type === 'ADDED') namespaceContent(core, obj);
    return;
  }
  const ns = obj.metadata.namespace;
  if (ns !== undefined && ns !== '' && core.collections.get('/resourcequotas')?.has(ns)) refreshQuotas(core, key, ns);
}
