/** What a fresh simulated cluster has before any workload: its nodes and a default StorageClass. */
import type { KubeClient } from '../../kube/client.js';
import type { KubeObject } from '../../kube/object.js';
import { KubeApiError } from '../../kube/errors.js';
import { sleep, type Clock } from './runtime/clock.js';
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

/** Retries a bootstrap write through API faults (a resilience test may start with errors on). */
async function retrying<T>(clock: Clock, signal: AbortSignal | undefined, write: () => Promise<T>): Promise<T | undefined> {
  for (let delay = 20; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await write();
    } catch (err) {
      const transient = !(err instanceof KubeApiError) || err.status === 429 || err.status >= 500;
      if (!transient || signal?.aborted) throw err;
      await sleep(clock, delay, signal);
      if (signal?.aborted) return undefined;
    }
  }
}

export async function bootstrapCluster(client: KubeClient, nodes: number, clock: Clock, signal?: AbortSignal): Promise<void> {
  await retrying(clock, signal, () => ensure(client, storageClassObject()));
  await Promise.all(
    Array.from({ length: nodes }, async (_, i) => {
      const node = await retrying(clock, signal, () => ensure(client, nodeObject(i)));
      if (!node) return;
      const ref = { apiVersion: 'v1', kind: 'Node', name: node.metadata.name ?? '' };
      await retrying(clock, signal, () => client.patch(ref, { status: nodeStatus(i, clock.now()) }, 'merge', { subresource: 'status' }));
    }),
  );
}
