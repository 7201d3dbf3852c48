/**
 * A client and a checkpoint store that first check the cluster's declaration still reaches the API
 * server an instance's objects are on (router.ts): a name in baton.yaml pointed at another server
 * must not silently move the instance there, leaving its objects and checkpoint orphaned on the old one.
 */
import type { KubeClient } from '../kube/client.js';
import type { CheckpointStore } from '../plans/checkpoint.js';

export function guardedClient(client: KubeClient, check: () => Promise<void>): KubeClient {
  return {
    resourceFor: async (apiVersion, kind) => { await check(); return client.resourceFor(apiVersion, kind); },
    get: async (ref) => { await check(); return client.get(ref); },
    list: async (apiVersion, kind, namespace, options) => { await check(); return client.list(apiVersion, kind, namespace, options); },
    watch: (apiVersion, kind, namespace, options) => ({
      async *[Symbol.asyncIterator]() {
        await check();
        yield* client.watch(apiVersion, kind, namespace, options);
      },
    }),
    create: async (obj, options) => { await check(); return client.create(obj, options); },
    update: async (obj, options) => { await check(); return client.update(obj, options); },
    updateStatus: async (obj, options) => { await check(); return client.updateStatus(obj, options); },
    patch: async (ref, patch, type, options) => { await check(); return client.patch(ref, patch, type, options); },
    apply: async (obj, options) => { await check(); return client.apply(obj, options); },
    delete: async (ref, options) => { await check(); return client.delete(ref, options); },
  };
}

export function guardedStore(store: CheckpointStore, check: () => Promise<void>): CheckpointStore {
  return {
    load: async (instance) => { await check(); return store.load(instance); },
    save: async (checkpoint, version) => { await check(); return store.save(checkpoint, version); },
    remove: async (instance) => { await check(); return store.remove(instance); },
  };
}
