/**
 * The public shapes of the simulated API server's storage: what the HTTP layer (src/cluster/server)
 * calls. Everything here is synchronous and in memory except `close()`, so a request handler can call
 * the store, serialise the answer and move on.
 *
 * Objects the store returns are shared, immutable snapshots (the store never mutates an object once
 * stored, it replaces it). Callers must copy before changing one. `StoreOptions.freeze` deep-freezes
 * stored objects to catch violations in tests.
 */
import type { KubeObject } from '../../kube/object.js';

/** The scale subresource's JSON paths, as in a CRD's `subresources.scale` (dotted, leading dot). */
export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface ConnectSubresource {
  name: string;
  verbs: string[];
  kind?: { group: string; version: string; kind: string };
}

/** One column of `kubectl get` output, as a CRD's `additionalPrinterColumns` declares it. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** One served group/version/resource. Built-in kinds and each served version of each CRD get one. */
export interface ResourceType {
  /** '' for the core group. */
  group: string;
  version: string;
  /** Plural, lower case, as in URLs: `deployments`. */
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: { status: boolean; scale?: ScaleSubresource };
  /**
   * Subresources served outside the store (`pods/log`, `pods/exec`, `serviceaccounts/token`...): listed
   * in discovery with their verbs and, when they answer with another kind, that kind.
   */
  connect?: ConnectSubresource[];
  /** Whether objects carry `metadata.generation` (bumped on spec changes), as the kind's real strategy does. */
  generation: boolean;
  /** A review kind (SelfSubjectAccessReview...): create only, answered and never stored. */
  virtual?: boolean;
  printerColumns?: PrinterColumn[];
  /** Whether this version is the CRD's storage version (always true for built-ins). */
  storage: boolean;
  /** Set for custom resources: the validation schema of this version (openAPIV3Schema). */
  schema?: Record<string, unknown>;
}

/** `group/version` as in apiVersion (`v1` for the core group). */
export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** `deployments.apps`, `configmaps`: the group-qualified resource used in error messages. */
export function qualifiedResource(type: Pick<ResourceType, 'group' | 'resource'>): string {
  return type.group === '' ? type.resource : `${type.resource}.${type.group}`;
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  /** `dryRun=All`: validate and answer as if written; persist nothing, emit no watch events. */
  dryRun?: boolean;
  /** The manager recorded in managedFields. Required for apply; the HTTP layer passes a user-agent-derived default otherwise. */
  fieldManager?: string;
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
  /** What to do with unknown fields of custom resources (default Strict for apply, Warn otherwise, like kubectl 1.27+). */
  fieldValidation?: FieldValidation;
  /** Receives warnings the real server would send in `Warning:` headers (unknown fields under Warn, ...). */
  onWarning?: (message: string) => void;
}

export type Subresource = 'status' | 'scale';

export interface UpdateOptions extends WriteOptions {
  subresource?: Subresource;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface PatchResult {
  object: KubeObject;
  /** True when the patch (only apply can) created the object: the HTTP layer answers 201. */
  created: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  /** Accepted for compatibility; lists are always served from the latest state. */
  resourceVersion?: string;
}

export interface ListResult {
  items: KubeObject[];
  /** The store's global resourceVersion when the list was served. */
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchOptions {
  /** Empty or '0': synthetic ADDED events for every existing object, then live events. Otherwise events after it. */
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks?: boolean;
  /** With `allowWatchBookmarks`: ADDED events for existing objects, then a BOOKMARK annotated `k8s.io/initial-events-end`. */
  sendInitialEvents?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface StoreWatchEvent {
  type: WatchEventType;
  /** The object (a BOOKMARK carries only kind, apiVersion and metadata.resourceVersion; ERROR carries a Status). */
  object: KubeObject | Record<string, unknown>;
}

export interface WatchHandle {
  stop(): void;
}

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

/** The answer to a delete: the object gone, or still there (finalizers, foreground) with a deletionTimestamp. */
export type DeleteResult =
  | { kind: 'deleted'; object: KubeObject }
  | { kind: 'pending'; object: KubeObject };

export interface StoreOptions {
  /** Directory for the snapshot and journal; absent keeps everything in memory. */
  dataDir?: string;
  /** Watch events retained for resuming watches; older resourceVersions get 410 Gone. Default 10000. */
  watchWindow?: number;
  /** Interval of periodic BOOKMARK events to watches that allow them. Default 60 s; 0 disables. */
  bookmarkIntervalMs?: number;
  /** Deep-freeze stored objects (tests): any mutation of a returned object throws. */
  freeze?: boolean;
  /** Clock, for deterministic timestamps in tests. */
  now?: () => Date;
  /** PEM of the cluster's CA, published in every namespace's `kube-root-ca.crt` (a placeholder without). */
  rootCaPem?: string;
}

/** An `autoscaling/v1` Scale object. */
export interface ScaleObject extends KubeObject {
  spec: { replicas?: number };
  status?: { replicas: number; selector?: string };
}
