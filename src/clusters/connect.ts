/**
 * A KubeClient for one cluster of baton.yaml `clusters`. It connects on first use (a kubeconfig file
 * and/or context, or a kubeconfig read from a Secret of the agent's own cluster) and again after a
 * failed attempt, so a cluster that comes up later or a Secret created later is picked up without a
 * restart. Every failure that is about the cluster rather than one request (not reached, credentials
 * refused, kubeconfig unusable) becomes a ClusterError naming the cluster, kubeconfig, context and server.
 */
import { isAbsolute, resolve } from 'node:path';
import type { ApplyOptions, DeleteOptions, KubeClient, ListOptions, ListResult, PatchType, ResourceInfo, WatchEvent, WatchOptions, WriteOptions } from '../kube/client.js';
import { KubeApiError, KubeConfigError, KubeTransportError } from '../kube/errors.js';
import { createKubeClient, type ClientTuning, type HttpKubeClient, type KubeClientOptions } from '../kube/http-client.js';
import type { KubeObject, ObjectRef } from '../kube/object.js';
import type { ClusterDecl } from '../render/schemas.js';
import { errorMessage } from '../errors.js';
import { ClusterConfigError, ClusterError, ClusterUnauthorizedError, ClusterUnreachableError, type ClusterWhere } from './errors.js';

export interface ConnectContext {
  /** The agent's own cluster: kubeconfig Secrets are read through it (connected on first need when a function). */
  own: KubeClient | (() => Promise<KubeClient>);
  /** The agent's own kubeconfig file, for a cluster that names only a context (default: $KUBECONFIG, ~/.kube/config). */
  kubeconfigPath?: string;
  /** Relative kubeconfig paths are resolved against this (default: the process's working directory). */
  cwd?: string;
  tuning?: ClientTuning;
}

export class ClusterClient implements KubeClient {
  private connecting: Promise<HttpKubeClient> | undefined;
  private server: string | undefined;

  constructor(private readonly decl: ClusterDecl, private readonly ctx: ConnectContext, private readonly impersonate?: string) {}

  get name(): string {
    return this.decl.name;
  }

  /** The API server URL (without a trailing '/') once connected; undefined before. */
  get serverUrl(): string | undefined {
    return this.server;
  }

  /** Where this cluster's kubeconfig comes from, for errors and logs. */
  where(): ClusterWhere {
    const d = this.decl;
    const kubeconfig = d.secret !== undefined
      ? `kubeconfig in Secret ${d.secret.namespace}/${d.secret.name} key ${d.secret.key}`
      : d.kubeconfig !== undefined ? `kubeconfig ${this.path(d.kubeconfig)}` : `the agent's kubeconfig${this.ctx.kubeconfigPath !== undefined ? ` ${this.ctx.kubeconfigPath}` : ''}`;
    return { cluster: d.name, kubeconfig, ...(d.context !== undefined ? { context: d.context } : {}), ...(this.server !== undefined ? { server: this.server } : {}) };
  }

  close(): void {
    void this.connecting?.then((c) => c.close(), () => undefined);
    this.connecting = undefined;
  }

  resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo> {
    return this.call((c) => c.resourceFor(apiVersion, kind));
  }

  get(ref: ObjectRef): Promise<KubeObject | undefined> {
    return this.call((c) => c.get(ref));
  }

  list(apiVersion: string, kind: string, namespace?: string, options?: ListOptions): Promise<ListResult> {
    return this.call((c) => c.list(apiVersion, kind, namespace, options));
  }

  async *watch(apiVersion: string, kind: string, namespace: string | undefined, options: WatchOptions): AsyncIterable<WatchEvent> {
    const client = await this.connected();
    try {
      yield* client.watch(apiVersion, kind, namespace, options);
    } catch (err) {
      throw this.rewrite(err);
    }
  }

  create(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    return this.call((c) => c.create(obj, options));
  }

  update(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    return this.call((c) => c.update(obj, options));
  }

  updateStatus(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    return this.call((c) => c.updateStatus(obj, options));
  }

  patch(ref: ObjectRef, patch: unknown, type: PatchType, options?: WriteOptions & { subresource?: 'status' | 'scale' }): Promise<KubeObject> {
    return this.call((c) => c.patch(ref, patch, type, options));
  }

  apply(obj: KubeObject, options: ApplyOptions): Promise<KubeObject> {
    return this.call((c) => c.apply(obj, options));
  }

  delete(ref: ObjectRef, options?: DeleteOptions): Promise<KubeObject | undefined> {
    return this.call((c) => c.delete(ref, options));
  }

  /** Connects (once; again after a failure), so `baton.yaml` can name a cluster before it exists. */
  connected(): Promise<HttpKubeClient> {
    if (this.connecting === undefined) {
      const attempt = this.connect();
      this.connecting = attempt;
      attempt.then((c) => { this.server = c.server.replace(/\/$/, ''); }, () => { if (this.connecting === attempt) this.connecting = undefined; });
    }
    return this.connecting;
  }

  private async call<T>(work: (client: HttpKubeClient) => Promise<T>): Promise<T> {
    const client = await this.connected();
    try {
      return await work(client);
    } catch (err) {
      throw this.rewrite(err);
    }
  }

  private async connect(): Promise<HttpKubeClient> {
    const d = this.decl;
    const base: KubeClientOptions = {
      ...(d.context !== undefined ? { context: d.context } : {}),
      ...(this.impersonate !== undefined ? { impersonate: this.impersonate } : {}),
      ...this.ctx.tuning,
    };
    try {
      if (d.secret !== undefined) return await createKubeClient({ ...base, kubeconfigText: { text: await this.secretText(d.secret), source: `Secret ${d.secret.namespace}/${d.secret.name} key ${d.secret.key}` } });
      const path = d.kubeconfig !== undefined ? this.path(d.kubeconfig) : this.ctx.kubeconfigPath;
      return await createKubeClient({ ...base, ...(path !== undefined ? { kubeconfigPath: path } : {}) });
    } catch (err) {
      // One line: a YAML parser's message quotes the text over several (and a status line is one line).
      throw err instanceof ClusterError ? err : new ClusterConfigError(this.where(), firstLine(errorMessage(err)), err);
    }
  }

  private async secretText(s: NonNullable<ClusterDecl['secret']>): Promise<string> {
    let secret: KubeObject | undefined;
    try {
      const own = typeof this.ctx.own === 'function' ? await this.ctx.own() : this.ctx.own;
      secret = await own.get({ apiVersion: 'v1', kind: 'Secret', namespace: s.namespace, name: s.name });
    } catch (err) {
      throw new ClusterConfigError(this.where(), `the Secret could not be read from the agent's own cluster: ${errorMessage(err)}`, err);
    }
    if (secret === undefined) throw new ClusterConfigError(this.where(), `Secret ${s.namespace}/${s.name} does not exist in the agent's own cluster`);
    const data = (secret as { data?: Record<string, string> }).data ?? {};
    const encoded = data[s.key];
    if (encoded === undefined) throw new ClusterConfigError(this.where(), `Secret ${s.namespace}/${s.name} has no key "${s.key}" (keys: ${Object.keys(data).join(', ') || 'none'})`);
    return Buffer.from(encoded, 'base64').toString('utf8');
  }

  private path(file: string): string {
    return isAbsolute(file) ? file : resolve(this.ctx.cwd ?? process.cwd(), file);
  }

  /** Failures about the cluster as a whole name it; a request's own failure (NotFound, Conflict...) passes unchanged. */
  private rewrite(err: unknown): unknown {
    if (err instanceof ClusterError) return err;
    if (err instanceof KubeTransportError) return new ClusterUnreachableError(this.where(), transportDetail(err), err);
    if (err instanceof KubeApiError && err.status === 401) return new ClusterUnauthorizedError(this.where(), `401 Unauthorized: ${err.message}`, err);
    if (err instanceof KubeConfigError) return new ClusterConfigError(this.where(), err.message, err);
    return err;
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0]?.trim() ?? text;
}

/** The request and the errno, without the transport's generic hint (the cluster error gives its own). */
function transportDetail(err: KubeTransportError): string {
  const cut = err.message.indexOf(': cannot reach the Kubernetes API');
  return cut >= 0 ? err.message.slice(0, cut) : err.message;
}
