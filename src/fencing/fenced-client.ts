/**
 * A KubeClient whose writes (create, update, patch, apply, delete) check the fence first, so a leader
 * that lost its lease (or was paused past its renew deadline) sends nothing more to the cluster:
 * plan applies and deletes, checkpoint writes and Events all go through it. Reads pass through; the
 * leader election itself uses the client underneath (it must renew the lease).
 */
import type { KubeClient } from '../kube/client.js';
import type { KubeObject, ObjectRef } from '../kube/object.js';
import type { Fence } from './lease-fence.js';

const label = (o: ObjectRef | KubeObject): string => {
  const ns = 'metadata' in o ? o.metadata.namespace : o.namespace;
  const name = 'metadata' in o ? o.metadata.name : o.name;
  return `${o.kind} ${ns ? `${ns}/` : ''}${name ?? ''}`;
};

export function fencedClient(client: KubeClient, fence: Fence): KubeClient {
  return {
    resourceFor: (apiVersion, kind) => client.resourceFor(apiVersion, kind),
    get: (ref) => client.get(ref),
    list: (apiVersion, kind, namespace, options) => client.list(apiVersion, kind, namespace, options),
    watch: (apiVersion, kind, namespace, options) => client.watch(apiVersion, kind, namespace, options),
    create: async (obj, options) => { fence.check(`create ${label(obj)}`); return client.create(obj, options); },
    update: async (obj, options) => { fence.check(`update ${label(obj)}`); return client.update(obj, options); },
    updateStatus: async (obj, options) => { fence.check(`update the status of ${label(obj)}`); return client.updateStatus(obj, options); },
    patch: async (ref, patch, type, options) => { fence.check(`patch ${label(ref)}`); return client.patch(ref, patch, type, options); },
    apply: async (obj, options) => { fence.check(`apply ${label(obj)}`); return client.apply(obj, options); },
    delete: async (ref, options) => { fence.check(`delete ${label(ref)}`); return client.delete(ref, options); },
  };
}

/** `clientFor` (a tenant's impersonating client per instance) with every client fenced, each wrapped once. */
export function fencedClients<K>(clientFor: (key: K) => KubeClient, fence: Fence): (key: K) => KubeClient {
  const wrapped = new WeakMap<KubeClient, KubeClient>();
  return (key) => {
    const client = clientFor(key);
    let fenced = wrapped.get(client);
    if (fenced === undefined) wrapped.set(client, (fenced = fencedClient(client, fence)));
    return fenced;
  };
}
