/**
 * The narrow interface to a Kubernetes API server. The plan engine, previews and the simulated
 * controllers talk to the cluster only through this, so they work unchanged against a real cluster
 * (kubeconfig) or Baton's simulated one. Implementations classify failures (see KubeApiError).
 */
import type { KubeObject, ObjectRef } from './object.js';

export interface ResourceInfo {
  group: string;
  version: string;
  /** Plural resource name used in URLs, e.g. `deployments`. */
  resource: string;
  kind: string;
  namespaced: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  /** Follow `continue` tokens and return every page's items at once (with `limit` as the page size). */
  allPages?: boolean;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this version; omitted means "now" with synthetic ADDED events for existing objects. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  /** Aborting ends the watch's iteration cleanly. */
  signal?: AbortSignal;
}

export interface ApplyOptions {
  fieldManager: string;
  force?: boolean;
  dryRun?: boolean;
}

export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
}

export type PatchType = 'merge' | 'json' | 'strategic';

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { resourceVersion?: string; uid?: string };
  dryRun?: boolean;
}

export interface KubeClient {
  /** Discovery lookup (cached; refreshed once on a miss so new CRDs are found). Throws KubeApiError NotFound. */
  resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo>;
  /** `undefined` when the object does not exist. */
  get(ref: ObjectRef): Promise<KubeObject | undefined>;
  list(apiVersion: string, kind: string, namespace?: string, options?: ListOptions): Promise<ListResult>;
  /** Events until the signal aborts, the server closes the stream, or an error (410 Gone is a KubeApiError). */
  watch(apiVersion: string, kind: string, namespace: string | undefined, options: WatchOptions): AsyncIterable<WatchEvent>;
  create(obj: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  /** PUT; a stale metadata.resourceVersion fails with Conflict. */
  update(obj: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  updateStatus(obj: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  patch(ref: ObjectRef, patch: unknown, type: PatchType, options?: WriteOptions & { subresource?: 'status' | 'scale' }): Promise<KubeObject>;
  /** Server-side apply (`application/apply-patch+yaml`). */
  apply(obj: KubeObject, options: ApplyOptions): Promise<KubeObject>;
  /** Returns the object as the server reported it, or `undefined` when it was already gone. */
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<KubeObject | undefined>;
  /**
   * The same server and credentials over connections of its own, when the client has any (HTTP):
   * Lease renewals go through it so that they never wait for a socket behind the agent's work.
   */
  withOwnConnection?(): KubeClient;
}
