/** What a fresh simulated cluster has before any workload: its nodes and a default StorageClass. */
import type { KubeClient } from '../../kube/client.js';
import type { KubeObject } from '../../kube/object.js';
import { KubeApiError } from '../../kube/errors.js';
import type { Clock } from './runtime/clock.js';
import { nodeObject, nodeStatus } from './kubelet/nodes.js';

export const DEFAULT_STORAGE_CLASS = 'standard';
export const PROVISIONER = 'sim.baton.dev/hostpath';

export function storageClassObject(): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
    allowVolumeExpansion: true,
  };
}

async function ensure(client: KubeClient, obj: KubeObject): Promise<KubeObject> {
  try {
    return await client.create(obj);
  } catch (err) {
    if (!(err instanceof KubeApiError && err.status === 409)) throw err;
    const existing = await client.get({ apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '' });
    return existing ?? obj;
  }
}

export async function bootstrapCluster(client: KubeClient, nodes: number, clock: Clock): Promise<void> {
  await ensure(client, storageClassObject());
  await Promise.all(
    Array.from({ length: nodes }, async (_, i) => {
      const node = await ensure(client, nodeObject(i));
      await client.patch({ apiVersion: 'v1', kind: 'Node', name: node.metadata.name ?? '' }, { status: nodeStatus(i, clock.now()) }, 'merge', { subresource: 'status' });
    }),
  );
}
