/** Shared fixtures for the store's contract tests: a fresh store and small manifests. */
import { ApiError, Store, type ResourceType, type StoreOptions } from '../../../src/cluster/store/index.js';
import type { KubeObject } from '../../../src/kube/object.js';

export function newStore(options: StoreOptions = {}): Store {
  return new Store({ freeze: true, bookmarkIntervalMs: 0, ...options });
}

export function typeOf(store: Store, group: string, resource: string, version = 'v1'): ResourceType {
  const t = store.registry.lookup(group, version, resource);
  if (!t) throw new Error(`no type ${group}/${version}/${resource}`);
  return t;
}

export function types(store: Store) {
  return {
    ns: typeOf(store, '', 'namespaces'),
    cm: typeOf(store, '', 'configmaps'),
    secret: typeOf(store, '', 'secrets'),
    svc: typeOf(store, '', 'services'),
    pod: typeOf(store, '', 'pods'),
    deploy: typeOf(store, 'apps', 'deployments'),
    rs: typeOf(store, 'apps', 'replicasets'),
    sts: typeOf(store, 'apps', 'statefulsets'),
    job: typeOf(store, 'batch', 'jobs'),
    crd: typeOf(store, 'apiextensions.k8s.io', 'customresourcedefinitions'),
  };
}

export function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

export function deployment(name: string, extra: { replicas?: number; image?: string; env?: { name: string; value: string }[] } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: extra.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: extra.image ?? 'nginx:1.25', ...(extra.env ? { env: extra.env } : {}), ports: [{ containerPort: 80 }] }] },
      },
    },
  };
}

export function pod(name: string, labels: Record<string, string> = {}, ownerOf?: KubeObject): KubeObject {
  const meta: KubeObject['metadata'] = { name, labels };
  if (ownerOf) {
    meta.ownerReferences = [{ apiVersion: ownerOf.apiVersion, kind: ownerOf.kind, name: ownerOf.metadata.name ?? '', uid: ownerOf.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }];
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } };
}

/** Runs `fn`, expecting an ApiError; returns it for assertions. */
export function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError, got success');
}

/** Tests reach into nested fields of manifests freely; this alias is the one place `any` is allowed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

export type Types = ReturnType<typeof types>;
