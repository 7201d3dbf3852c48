/**
 * `KubeClient` over HTTP(S). Objects travel as plain JSON, never through client-node's typed models
 * (they drop unknown fields and mangle custom resources): client-node only supplies kubeconfig auth.
 */
import type {
  ApplyOptions,
  DeleteOptions,
  KubeClient,
  ListOptions,
  ListResult,
  PatchType,
  ResourceInfo,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './client.js';
import { connectionFromUrl, withOwnSockets, type Connection, type UrlOptions } from './connection.js';
import { Discovery } from './discovery.js';
import { connectionFromKubeconfig, type KubeconfigOptions } from './kubeconfig.js';
import { isRecord, type KubeObject, type ObjectRef } from './object.js';
import { collectionPath, itemPath, query } from './paths.js';
import { asStatus } from './status.js';
import { DEFAULT_TRANSPORT, NOT_FOUND, Transport, type TransportOptions } from './transport.js';
import { watchStream } from './watch.js';
import { KubeApiError } from './errors.js';
import { BatonError } from '../errors.js';

export interface ClientTuning {
  /** Per-request deadline in ms (watches excepted once open). Default 30000. */
  timeoutMs?: number;
  /** Retries of reads answered 429/503, honouring Retry-After. Default 3. */
  readRetries?: number;
  /** Cap on one Retry-After wait in ms. Default 10000. */
  maxRetryWaitMs?: number;
  /** For tests: how to wait between read retries. */
  sleep?: (ms: number) => Promise<void>;
}

export type KubeClientOptions = (KubeconfigOptions | UrlOptions) & ClientTuning & {
  /** Act as this user (`Impersonate-User`), e.g. a tenant's `system:serviceaccount:<ns>:<name>`. */
  impersonate?: string;
};

const PATCH_TYPES: Readonly<Record<PatchType, string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** Connects by URL (the simulated cluster, tests) or through a kubeconfig (real clusters). */
export async function createKubeClient(options: KubeClientOptions = {}): Promise<HttpKubeClient> {
  const base = 'url' in options ? connectionFromUrl(options) : await connectionFromKubeconfig(options);
  const user = options.impersonate;
  // Impersonation is one more header on every request, watches included; the API server checks the
  // caller may `impersonate` that user and then authorizes the request as it.
  const conn: Connection = user === undefined ? base : { ...base, headers: async () => ({ ...(await base.headers()), 'impersonate-user': user }) };
  const transport: TransportOptions = {
    timeoutMs: options.timeoutMs ?? DEFAULT_TRANSPORT.timeoutMs,
    readRetries: options.readRetries ?? DEFAULT_TRANSPORT.readRetries,
    maxRetryWaitMs: options.maxRetryWaitMs ?? DEFAULT_TRANSPORT.maxRetryWaitMs,
    sleep: options.sleep ?? DEFAULT_TRANSPORT.sleep,
  };
  return new HttpKubeClient(conn, transport);
}

export class HttpKubeClient implements KubeClient {
  private readonly http: Transport;
  private readonly discovery: Discovery;
  readonly defaultNamespace: string;
  readonly server: string;

  constructor(private readonly conn: Connection, private readonly transport: TransportOptions) {
    this.http = new Transport(conn, transport);
    this.discovery = new Discovery((path) => this.http.json({ method: 'GET', path, idempotent: true }));
    this.defaultNamespace = conn.defaultNamespace;
    this.server = conn.baseUrl.toString();
  }

  /** Frees keep-alive sockets. Open watches end. */
  close(): void {
    this.http.close();
  }

  /** A client of the same server and credentials with sockets of its own (see withOwnSockets). */
  withOwnConnection(): HttpKubeClient {
    return new HttpKubeClient(withOwnSockets(this.conn), this.transport);
  }

  /** Forgets cached discovery (CRDs removed or changed version). */
  resetDiscovery(): void {
    this.discovery.reset();
  }

  resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo> {
    return this.discovery.resourceFor(apiVersion, kind);
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    const info = await this.resourceFor(ref.apiVersion, ref.kind);
    try {
      const name = this.nameOf(ref.apiVersion, ref.kind, ref.name, 'get');
      const body = await this.http.json({ method: 'GET', path: itemPath(info, this.ns(info, ref.namespace), name), idempotent: true, notFoundOk: true });
      return body === NOT_FOUND ? undefined : this.object(body, ref.apiVersion, ref.kind);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async list(apiVersion: string, kind: string, namespace?: string, options: ListOptions = {}): Promise<ListResult> {
    const info = await this.resourceFor(apiVersion, kind);
    const items: KubeObject[] = [];
    let token = options.continue;
    for (;;) {
      const path = collectionPath(info, namespace) + query({
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.limit,
        continue: token,
        resourceVersion: options.resourceVersion,
      });
      const body = await this.http.json({ method: 'GET', path, idempotent: true });
      const page = isRecord(body) ? body : {};
      const meta = isRecord(page.metadata) ? page.metadata : {};
      // Real servers leave apiVersion and kind out of list items.
      for (const item of Array.isArray(page.items) ? (page.items as unknown[]) : []) items.push(this.object(item, apiVersion, kind));
      const next = typeof meta.continue === 'string' && meta.continue !== '' ? meta.continue : undefined;
      const resourceVersion = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '';
      if (next !== undefined && options.allPages === true) {
        token = next;
        continue;
      }
      return next === undefined ? { items, resourceVersion } : { items, resourceVersion, continue: next };
    }
  }

  async *watch(apiVersion: string, kind: string, namespace: string | undefined, options: WatchOptions): AsyncGenerator<WatchEvent> {
    const info = await this.resourceFor(apiVersion, kind);
    const { signal } = options;
    const path = collectionPath(info, namespace) + query({
      watch: 'true',
      resourceVersion: options.resourceVersion,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      allowWatchBookmarks: options.allowWatchBookmarks,
      timeoutSeconds: options.timeoutSeconds,
    });
    for await (const raw of watchStream(this.http, path, signal)) yield { type: raw.type, object: this.object(raw.object, apiVersion, kind) };
  }

  async create(obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const info = await this.resourceFor(obj.apiVersion, obj.kind);
    const path = collectionPath(info, this.ns(info, obj.metadata.namespace)) + writeQuery(options);
    return this.object(await this.http.json({ method: 'POST', path, body: obj }), obj.apiVersion, obj.kind);
  }

  update(obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    return this.put(obj, undefined, options);
  }

  updateStatus(obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    return this.put(obj, 'status', options);
  }

  async patch(ref: ObjectRef, patch: unknown, type: PatchType, options: WriteOptions & { subresource?: 'status' | 'scale' } = {}): Promise<KubeObject> {
    const info = await this.resourceFor(ref.apiVersion, ref.kind);
    const path = itemPath(info, this.ns(info, ref.namespace), this.nameOf(ref.apiVersion, ref.kind, ref.name, 'patch'), options.subresource) + writeQuery(options);
    const body = await this.http.json({ method: 'PATCH', path, body: patch, contentType: PATCH_TYPES[type] });
    return options.subresource === 'scale' ? this.object(body, 'autoscaling/v1', 'Scale') : this.object(body, ref.apiVersion, ref.kind);
  }

  async apply(obj: KubeObject, options: ApplyOptions): Promise<KubeObject> {
    const info = await this.resourceFor(obj.apiVersion, obj.kind);
    const name = this.nameOf(obj.apiVersion, obj.kind, obj.metadata.name, 'apply');
    const path = itemPath(info, this.ns(info, obj.metadata.namespace), name) + query({
      fieldManager: options.fieldManager,
      force: options.force === true ? 'true' : undefined,
      dryRun: options.dryRun === true ? 'All' : undefined,
    });
    // The API server refuses apply bodies that carry managedFields.
    const { managedFields: _dropped, ...metadata } = obj.metadata;
    const body = { ...obj, metadata };
    const answer = await this.http.json({ method: 'PATCH', path, body, contentType: 'application/apply-patch+yaml' });
    return this.object(answer, obj.apiVersion, obj.kind);
  }

  async delete(ref: ObjectRef, options: DeleteOptions = {}): Promise<KubeObject | undefined> {
    const info = await this.resourceFor(ref.apiVersion, ref.kind);
    const { dryRun, ...rest } = options;
    const path = itemPath(info, this.ns(info, ref.namespace), this.nameOf(ref.apiVersion, ref.kind, ref.name, 'delete')) + query({ dryRun: dryRun === true ? 'All' : undefined });
    try {
      const body = await this.http.json({ method: 'DELETE', path, body: { kind: 'DeleteOptions', apiVersion: 'v1', ...rest }, notFoundOk: true });
      if (body === NOT_FOUND) return undefined;
      // Some resources answer a success Status instead of the object.
      if (asStatus(body) !== undefined || !isRecord(body)) {
        return { apiVersion: ref.apiVersion, kind: ref.kind, metadata: ref.namespace === undefined ? { name: ref.name } : { name: ref.name, namespace: ref.namespace } };
      }
      return this.object(body, ref.apiVersion, ref.kind);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async put(obj: KubeObject, subresource: 'status' | undefined, options: WriteOptions): Promise<KubeObject> {
    const info = await this.resourceFor(obj.apiVersion, obj.kind);
    const name = this.nameOf(obj.apiVersion, obj.kind, obj.metadata.name, subresource === undefined ? 'update' : 'updateStatus');
    const path = itemPath(info, this.ns(info, obj.metadata.namespace), name, subresource) + writeQuery(options);
    return this.object(await this.http.json({ method: 'PUT', path, body: obj }), obj.apiVersion, obj.kind);
  }

  /** A named request without a name would address the collection instead: refuse it clearly. */
  private nameOf(apiVersion: string, kind: string, name: string | undefined, verb: string): string {
    if (name === undefined || name === '') {
      throw new BatonError('KUBE_NO_NAME', `${verb} ${kind} (${apiVersion}): metadata.name is required`, { apiVersion, kind, verb });
    }
    return name;
  }

  private ns(info: ResourceInfo, namespace: string | undefined): string | undefined {
    if (!info.namespaced) return undefined;
    return namespace ?? this.defaultNamespace;
  }

  private object(body: unknown, apiVersion: string, kind: string): KubeObject {
    const record = isRecord(body) ? body : {};
    const metadata = isRecord(record.metadata) ? record.metadata : {};
    return { ...record, apiVersion: typeof record.apiVersion === 'string' ? record.apiVersion : apiVersion, kind: typeof record.kind === 'string' ? record.kind : kind, metadata };
  }
}

function writeQuery(options: WriteOptions): string {
  return query({ fieldManager: options.fieldManager, dryRun: options.dryRun === true ? 'All' : undefined });
}

function isNotFound(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 404;
}
