/**
 * Dynamic provisioning and binding: a PersistentVolumeClaim of an existing StorageClass (or the
 * default, `standard`) gets a PersistentVolume `pvc-<uid>` and both become Bound. A claim of a
 * missing class, or annotated `sim.baton.dev/fail: pending`, stays Pending with a ProvisioningFailed
 * event. A released volume of reclaim policy Delete is deleted with its claim.
 */
import type { KubeObject } from '../../kube/object.js';
import { KubeApiError } from '../../kube/errors.js';
import type { Controller, ControllerContext, ReconcileResult } from './runtime/controller.js';
import { nameOf, record, spec, status, str } from './runtime/meta.js';
import { PROVISIONER } from './bootstrap.js';
import { failureOf } from './sim.js';

function defaultClass(ctx: ControllerContext): KubeObject | undefined {
  return ctx.informer('StorageClass').list().find((sc) => sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
}

export function volumeFor(pvc: KubeObject, className: string, reclaim: string): KubeObject {
  const claimSpec = spec(pvc);
  const storage = str(record(record(claimSpec.resources).requests).storage) ?? '1Gi';
  const name = `pvc-${pvc.metadata.uid ?? nameOf(pvc)}`;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER } },
    spec: {
      capacity: { storage },
      accessModes: claimSpec.accessModes ?? ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: reclaim,
      storageClassName: className,
      volumeMode: claimSpec.volumeMode ?? 'Filesystem',
      claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: pvc.metadata.namespace, name: nameOf(pvc), uid: pvc.metadata.uid },
      hostPath: { path: `/var/lib/baton-sim/${name}`, type: '' },
    },
  };
}

async function pending(pvc: KubeObject, ctx: ControllerContext, message: string): Promise<ReconcileResult | undefined> {
  if (str(status(pvc).phase) !== 'Pending') await ctx.api.patchStatus(pvc, { phase: 'Pending' });
  ctx.events.emit(pvc, 'Warning', 'ProvisioningFailed', message, 'persistentvolume-controller');
  return undefined;
}

export function claimController(): Controller {
  const warned = new Set<string>();
  return {
    name: 'persistentvolumeclaim',
    kind: 'PersistentVolumeClaim',
    watches: [{ kind: 'StorageClass', keys: (_sc, ctx) => ctx.informer('PersistentVolumeClaim').list().filter((c) => str(status(c).phase) !== 'Bound').map((c) => `${c.metadata.namespace ?? ''}/${nameOf(c)}`) }],
    forget(pvc) {
      warned.delete(pvc.metadata.uid ?? '');
    },
    async reconcile(key, ctx) {
      const pvc = ctx.informer('PersistentVolumeClaim').get(key);
      if (!pvc || pvc.metadata.deletionTimestamp !== undefined || str(status(pvc).phase) === 'Bound') return undefined;
      const uid = pvc.metadata.uid ?? key;
      const once = async (message: string): Promise<ReconcileResult | undefined> => {
        if (warned.has(uid)) return undefined;
        warned.add(uid);
        return pending(pvc, ctx, message);
      };
      const className = str(spec(pvc).storageClassName) ?? (defaultClass(ctx) ? nameOf(defaultClass(ctx) as KubeObject) : undefined);
      if (failureOf(pvc) === 'pending') return once(`failed to provision volume with StorageClass "${className ?? ''}": simulated failure (sim.baton.dev/fail: pending)`);
      if (className === undefined) return once('no persistent volumes available for this claim and no storage class is set');
      const sc = ctx.informer('StorageClass').get(className);
      if (!sc) return once(`storageclass.storage.k8s.io "${className}" not found`);
      warned.delete(uid);

      const pv = volumeFor(pvc, className, str(sc.reclaimPolicy) ?? 'Delete');
      const existing = ctx.informer('PersistentVolume').get(nameOf(pv));
      const bound = existing ?? (await ctx.api.create(pv)) ?? pv;
      await ctx.api.patchStatus(bound, { phase: 'Bound' });
      const annotations = { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes', 'volume.kubernetes.io/storage-provisioner': PROVISIONER };
      let claim: KubeObject;
      try {
        claim = await ctx.api.patch(pvc, { metadata: { annotations }, spec: { volumeName: nameOf(pv), storageClassName: className } });
      } catch (err) {
        // Kubernetes lets the binder set volumeName (and a nil class) once; an API server that refuses
        // any spec change still gets a Bound claim, with the volume named in status only.
        if (!(err instanceof KubeApiError && err.status === 422)) throw err;
        claim = await ctx.api.patch(pvc, { metadata: { annotations } });
      }
      const pvSpec = spec(pv);
      await ctx.api.patchStatus(claim, { phase: 'Bound', accessModes: pvSpec.accessModes, capacity: pvSpec.capacity });
      ctx.events.emit(pvc, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${nameOf(pv)}`, 'persistentvolume-controller');
      return undefined;
    },
  };
}

/** Volumes whose claim is gone: deleted (reclaim Delete) or Released. */
export function volumeController(): Controller {
  return {
    name: 'persistentvolume',
    kind: 'PersistentVolume',
    watches: [{ kind: 'PersistentVolumeClaim', keys: (pvc) => [`pvc-${pvc.metadata.uid ?? ''}`, ...(str(spec(pvc).volumeName) ? [String(spec(pvc).volumeName)] : [])] }],
    async reconcile(key, ctx) {
      const pv = ctx.informer('PersistentVolume').get(key);
      if (!pv || str(status(pv).phase) !== 'Bound') return undefined;
      const ref = record(spec(pv).claimRef);
      const claim = ctx.informer('PersistentVolumeClaim').get(`${str(ref.namespace) ?? ''}/${str(ref.name) ?? ''}`);
      if (claim && claim.metadata.uid === ref.uid) return undefined;
      // The cache may lag a fresh claim: confirm with the API before letting a volume go.
      const live = await ctx.client.get({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: str(ref.namespace) ?? '', name: str(ref.name) ?? '' });
      if (live && live.metadata.uid === ref.uid) return undefined;
      if (str(spec(pv).persistentVolumeReclaimPolicy) === 'Delete') await ctx.api.delete(pv);
      else await ctx.api.patchStatus(pv, { phase: 'Released' });
      return undefined;
    },
  };
}
