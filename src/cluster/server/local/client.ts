/**
 * A `KubeClient` for code in the API server's own process (the simulated controllers): every request
 * takes the path an HTTP request takes through the server (type resolution, 404/405, authorization
 * as the administrator, the fault interceptor, the store's verb, errors as `Status`), without a
 * socket, HTTP parsing or JSON text. It answers as `HttpKubeClient` does against the same server:
 * the same objects, the same `KubeApiError`s (reason, code, Retry-After), the same retries of reads
 * answered 429/503, and watches with the same events in the same order (see watch.ts).
 *
 * Objects cross as JSON-normalized deep copies (json.ts) both ways: the store's objects are shared
 * snapshots, and a controller owns what it is given, as it would after parsing an HTTP answer.
 */
import type {
  ApplyOptions, DeleteOptions, KubeClient, ListOptions, ListResult, PatchType, ResourceInfo, WatchEvent, WatchOptions, WriteOptions,
} from '../../../kube/client.js';
import { noResourceFor } from '../../../kube/discovery.js';
import { KubeApiError, KubeTransportError } from '../../../kube/errors.js';
import { type KubeObject, type ObjectRef, isRecord } from '../../../kube/object.js';
import { collectionPath, itemPath } from '../../../kube/paths.js';
import { BatonError } from '../../../errors.js';
import type { ApiVerb, RequestInfo, RequestInterceptor } from '../../faults/types.js';
import { ApiError, badRequest, methodNotAllowed } from '../../store/errors.js';
import type { Store } from '../../store/store.js';
import type { ResourceType, Subresource, UpdateOptions } from '../../store/types.js';
import { apiVersionOf } from '../../store/types.js';
import { type AccessControl, type UserInfo, authorize } from '../auth/index.js';
import { review } from '../auth/reviews.js';
import { checkPatchBody, unsupportedPatchType } from '../body.js';
import { faultAnswer } from '../faults.js';
import { deleteOptions } from '../params.js';
import { statusBody } from '../respond.js';
import { jsonCopy } from './json.js';
import { localWatch } from './watch.js';

export interface LocalClientContext {
  store: Store;
  access: AccessControl;
  /** Who the requests are from (the controllers: the administrator, as their token makes them over HTTP). */
  user: UserInfo;
  interceptor: RequestInterceptor | undefined;
  /** Watches without timeoutSeconds end after this long, as the server's. */
  watchTimeoutMs: number;
}

/** The HTTP client's tuning that applies in-process (see ClientTuning in src/kube/http-client.ts). */
export interface LocalClientTuning {
  /** A request delayed (fault injection) this long gets a KubeTransportError instead. Default 30000. */
  timeoutMs?: number;
  /** Retries of reads answered 429/503, honouring Retry-After. Default 3. */
  readRetries?: number;
  /** Cap on one Retry-After wait in ms. Default 10000. */
  maxRetryWaitMs?: number;
}

const METHODS: Readonly<Record<ApiVerb, string>> = {
  get: 'GET', list: 'GET', watch: 'GET', create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETE',
};

interface Call {
  verb: ApiVerb;
  info: ResourceInfo;
  type: ResourceType;
  namespace: string | undefined;
  name?: string;
  subresource?: Subresource;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const noWarnings = (): void => {};

export class LocalKubeClient implements KubeClient {
  readonly defaultNamespace = 'default';
  private readonly timeoutMs: number;
  private readonly readRetries: number;
  private readonly maxRetryWaitMs: number;
  private readonly cuts = new Set<() => void>();
  private closed = false;

  constructor(private readonly ctx: LocalClientContext, tuning: LocalClientTuning = {}) {
    this.timeoutMs = tuning.timeoutMs ?? 30_000;
    this.readRetries = tuning.readRetries ?? 3;
    this.maxRetryWaitMs = tuning.maxRetryWaitMs ?? 10_000;
  }

  /** The server stops: open watches break and later requests fail as a refused connection would. */
  close(): void {
    this.closed = true;
    for (const cut of [...this.cuts]) cut();
  }

  async resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo> {
    return this.resolveKind(apiVersion, kind).info;
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    const call = this.named('get', ref.apiVersion, ref.kind, ref.namespace, ref.name, 'get');
    try {
      return await this.read(call, () => withKind(jsonCopy(this.ctx.store.get(call.type, call.namespace, call.name ?? '')), ref.apiVersion, ref.kind));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async list(apiVersion: string, kind: string, namespace?: string, options: ListOptions = {}): Promise<ListResult> {
    const call = this.collection('list', apiVersion, kind, namespace);
    const items: KubeObject[] = [];
    let token = options.continue;
    for (;;) {
      const page = await this.read(call, () => this.ctx.store.list(call.type, call.namespace, {
        // Checked where the server reads its query, after the fault interceptor.
        ...nonNegative('limit', options.limit),
        ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
        ...(options.fieldSelector !== undefined ? { fieldSelector: options.fieldSelector } : {}),
        ...(token !== undefined && token !== '' ? { continue: token } : {}),
        ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
      }));
      for (const item of page.items) items.push(withKind(jsonCopy(item), apiVersion, kind));
      const next = page.continue !== undefined && page.continue !== '' ? page.continue : undefined;
      if (next !== undefined && options.allPages === true) {
        token = next;
        continue;
      }
      return next === undefined ? { items, resourceVersion: page.resourceVersion } : { items, resourceVersion: page.resourceVersion, continue: next };
    }
  }

  async *watch(apiVersion: string, kind: string, namespace: string | undefined, options: WatchOptions): AsyncGenerator<WatchEvent> {
    const call = this.collection('watch', apiVersion, kind, namespace);
    if (options.signal?.aborted === true) return;
    const decision = await this.admit(call);
    let timeoutSeconds: number | undefined;
    try {
      timeoutSeconds = nonNegative('timeoutSeconds', options.timeoutSeconds).timeoutSeconds;
    } catch (err) {
      throw this.failure(call, err);
    }
    const spec = {
      store: this.ctx.store,
      type: call.type,
      namespace: call.namespace,
      options: {
        ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
        ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
        ...(options.fieldSelector !== undefined ? { fieldSelector: options.fieldSelector } : {}),
        allowWatchBookmarks: options.allowWatchBookmarks === true,
      },
      timeoutMs: timeoutSeconds === undefined || timeoutSeconds === 0 ? this.ctx.watchTimeoutMs : timeoutSeconds * 1000,
      ...(decision !== undefined ? { dropAfterMs: decision } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      context: contextOf(call),
      register: (cut: () => void) => {
        this.cuts.add(cut);
        return () => void this.cuts.delete(cut);
      },
      failed: (err: unknown): never => {
        // A version too old is an ERROR event in the stream over HTTP (the client marks it); others are the answer's status.
        throw this.failure(call, err, err instanceof ApiError && err.httpCode === 410 ? { watch: true } : {});
      },
    };
    yield* localWatch(spec, apiVersionOf(call.type));
  }

  async create(obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const call = this.call('create', obj.apiVersion, obj.kind, obj.metadata.namespace, undefined);
    const body = jsonCopy(obj);
    const { store, access, user } = this.ctx;
    if (call.type.virtual) {
      return this.write(call, async () => withKind(jsonCopy(await review(call.type.kind, { ...body, apiVersion: apiVersionOf(call.type) }, { store, user, auth: access.auth, rbac: access.rbac, namespace: call.namespace })), obj.apiVersion, obj.kind));
    }
    return this.write(call, () => withKind(jsonCopy(store.create(call.type, call.namespace, body, this.writeOptions(call, options))), obj.apiVersion, obj.kind));
  }

  update(obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    return this.put(obj, undefined, options, 'update');
  }

  updateStatus(obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    return this.put(obj, 'status', options, 'updateStatus');
  }

  async patch(ref: ObjectRef, patch: unknown, type: PatchType, options: WriteOptions & { subresource?: 'status' | 'scale' } = {}): Promise<KubeObject> {
    const call = this.named('patch', ref.apiVersion, ref.kind, ref.namespace, ref.name, 'patch', options.subresource);
    const body = jsonCopy(patch);
    return this.write(call, () => {
      const refused = unsupportedPatchType(type, call.type.schema === undefined);
      if (refused) throw refused;
      checkPatchBody(type, body);
      const result = this.ctx.store.patch(call.type, call.namespace, call.name ?? '', type, body, this.writeOptions(call, options));
      return options.subresource === 'scale' ? withKind(jsonCopy(result.object), 'autoscaling/v1', 'Scale') : withKind(jsonCopy(result.object), ref.apiVersion, ref.kind);
    });
  }

  async apply(obj: KubeObject, options: ApplyOptions): Promise<KubeObject> {
    const call = this.named('patch', obj.apiVersion, obj.kind, obj.metadata.namespace, obj.metadata.name, 'apply');
    // As the HTTP client: the API server refuses apply bodies that carry managedFields.
    const { managedFields: _dropped, ...metadata } = obj.metadata;
    const body = jsonCopy({ ...obj, metadata });
    return this.write(call, () => {
      const manager = options.fieldManager;
      checkPatchBody('apply', body);
      const opts: UpdateOptions = { ...this.writeOptions(call, { fieldManager: manager, ...(options.dryRun === true ? { dryRun: true } : {}) }), ...(options.force === true ? { force: true } : {}) };
      if (manager === '') throw new ApiError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
      return withKind(jsonCopy(this.ctx.store.patch(call.type, call.namespace, call.name ?? '', 'apply', body, opts).object), obj.apiVersion, obj.kind);
    });
  }

  async delete(ref: ObjectRef, options: DeleteOptions = {}): Promise<KubeObject | undefined> {
    const call = this.named('delete', ref.apiVersion, ref.kind, ref.namespace, ref.name, 'delete');
    const { dryRun, ...rest } = options;
    // The options travel as the HTTP client sends them (a DeleteOptions body, dryRun in the query) and are read as the server reads them.
    const body = jsonCopy({ kind: 'DeleteOptions', apiVersion: 'v1', ...rest });
    try {
      return await this.write(call, () => {
        const result = this.ctx.store.delete(call.type, call.namespace, call.name ?? '', deleteOptions(new URLSearchParams(dryRun === true ? 'dryRun=All' : ''), body));
        if (result.kind === 'pending') return withKind(jsonCopy(result.object), ref.apiVersion, ref.kind);
        // A completed delete answers with a Success Status: the HTTP client returns this stub for it.
        return { apiVersion: ref.apiVersion, kind: ref.kind, metadata: ref.namespace === undefined ? { name: ref.name } : { name: ref.name, namespace: ref.namespace } };
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async put(obj: KubeObject, subresource: 'status' | undefined, options: WriteOptions, verb: string): Promise<KubeObject> {
    const call = this.named('update', obj.apiVersion, obj.kind, obj.metadata.namespace, obj.metadata.name, verb, subresource);
    const body = jsonCopy(obj);
    return this.write(call, () => withKind(jsonCopy(this.ctx.store.update(call.type, call.namespace, call.name ?? '', body, this.writeOptions(call, options))), obj.apiVersion, obj.kind));
  }

  private resolveKind(apiVersion: string, kind: string): { info: ResourceInfo; type: ResourceType } {
    if (this.closed) throw this.refused('GET', `/${apiVersion.includes('/') ? 'apis' : 'api'}/${apiVersion}`);
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    const type = this.ctx.store.registry.lookupKind(group, version, kind);
    if (!type) throw noResourceFor(apiVersion, kind);
    return { info: { group, version, resource: type.resource, kind: type.kind, namespaced: type.namespaced }, type };
  }

  /**
   * What the request would address over HTTP: the kind looked up first (discovery), then the rest; a
   * namespaced kind's namespace defaults as the HTTP client's does, except for a collection (all namespaces).
   */
  private call(verb: ApiVerb, apiVersion: string, kind: string, namespace: string | undefined, name: (() => string) | undefined, subresource?: Subresource, collection = false): Call {
    const { info, type } = this.resolveKind(apiVersion, kind);
    const ns = !type.namespaced ? undefined : collection ? namespace : namespace ?? this.defaultNamespace;
    const call: Call = { verb, info, type, namespace: ns };
    if (name !== undefined) call.name = name();
    if (subresource !== undefined) call.subresource = subresource;
    return call;
  }

  private named(verb: ApiVerb, apiVersion: string, kind: string, namespace: string | undefined, name: string | undefined, what: string, subresource?: Subresource): Call {
    return this.call(verb, apiVersion, kind, namespace, () => this.nameOf(apiVersion, kind, name, what), subresource);
  }

  private collection(verb: ApiVerb, apiVersion: string, kind: string, namespace: string | undefined): Call {
    return this.call(verb, apiVersion, kind, namespace, undefined, undefined, true);
  }

  /**
   * The server's checks before the store, in its order: the path names something served (404), the
   * verb is allowed (405), authorization, then the fault interceptor. Returns a watch's drop delay.
   */
  private async admit(call: Call): Promise<number | undefined> {
    // Every request waits for the event loop's next turn, as an HTTP answer does: a controller that
    // writes, sees its event and writes again would otherwise run on microtasks alone and starve the
    // server's sockets and timers (a node marked down livelocked the process that way).
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.closed) throw this.refused(METHODS[call.verb], contextOf(call).path);
    const { type, verb, subresource } = call;
    try {
      if (subresource !== undefined && !(subresource === 'status' ? type.subresources.status : type.subresources.scale !== undefined)) {
        throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
      }
      const what = `${type.resource}${subresource ? `/${subresource}` : ''}`;
      if (!type.verbs.includes(verb)) throw methodNotAllowed(`the server does not allow this method on the requested resource (${METHODS[verb]} ${what})`);
      // Without RBAC every request is allowed: no need to build its attributes.
      if (this.ctx.access.rbac) authorize(this.ctx.access, this.ctx.user, {
        kind: 'resource', verb, group: type.group, resource: type.resource,
        ...(subresource !== undefined ? { subresource } : {}), ...(call.namespace !== undefined ? { namespace: call.namespace } : {}), ...(call.name !== undefined ? { name: call.name } : {}),
      });
    } catch (err) {
      throw this.failure(call, err);
    }
    const interceptor = this.ctx.interceptor;
    if (!interceptor || type.virtual) return undefined;
    const info: RequestInfo = { verb, group: type.group, resource: type.resource };
    if (call.namespace !== undefined) info.namespace = call.namespace;
    if (call.name !== undefined) info.name = call.name;
    if (subresource !== undefined) info.subresource = subresource;
    const decision = interceptor.intercept(info);
    switch (decision.kind) {
      case 'pass':
        return undefined;
      case 'delay':
        await this.wait(call, decision.ms);
        return undefined;
      case 'drop-watch':
        return verb === 'watch' ? decision.afterMs : undefined;
      case 'error': {
        if (decision.delayMs) await this.wait(call, decision.delayMs);
        const e = faultAnswer(decision);
        const details = e.retryAfterSeconds !== undefined ? { retryAfterSeconds: e.retryAfterSeconds } : {};
        throw new KubeApiError(e.code, statusBody(e.code, e.reason, e.message, details), contextOf(call), e.retryAfterSeconds);
      }
    }
  }

  /** A fault's delay; one past the HTTP client's deadline is its timeout (the server goes on regardless). */
  private async wait(call: Call, ms: number): Promise<void> {
    if (ms < this.timeoutMs) {
      await sleep(ms);
      return;
    }
    await sleep(this.timeoutMs);
    const context = contextOf(call);
    throw new KubeTransportError(`${context.method} ${context.path}: no answer within ${this.timeoutMs} ms`, { ...context, timeoutMs: this.timeoutMs });
  }

  /** A read: retried on 429/503 as the HTTP transport retries idempotent requests. */
  private async read<T>(call: Call, serve: () => T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.write(call, serve);
      } catch (err) {
        if (!(err instanceof KubeApiError && (err.status === 429 || err.status === 503)) || attempt >= this.readRetries) throw err;
        await sleep(Math.min((err.retryAfterSeconds ?? 1) * 1000, this.maxRetryWaitMs));
      }
    }
  }

  private async write<T>(call: Call, serve: () => T | Promise<T>): Promise<T> {
    await this.admit(call);
    try {
      return await serve();
    } catch (err) {
      throw this.failure(call, err);
    }
  }

  private writeOptions(call: Call, options: WriteOptions): UpdateOptions {
    const manager = options.fieldManager;
    if (manager !== undefined && manager.length > 128) throw badRequest('fieldManager: Too long: may not be more than 128 bytes');
    // Without a fieldManager the server takes the User-Agent's first segment: the HTTP client sends none.
    const opts: UpdateOptions = { onWarning: noWarnings, fieldManager: manager ?? 'unknown' };
    if (options.dryRun === true) opts.dryRun = true;
    if (call.subresource !== undefined) opts.subresource = call.subresource;
    return opts;
  }

  /** The client's error for what the server threw: its Status as a KubeApiError, anything else a 500. */
  private failure(call: Call, err: unknown, extra: Record<string, unknown> = {}): Error {
    if (err instanceof KubeApiError || err instanceof KubeTransportError) return err;
    if (err instanceof ApiError) return new KubeApiError(err.httpCode, { ...err.status }, { ...contextOf(call), ...extra });
    const message = err instanceof Error ? err.message : String(err);
    return new KubeApiError(500, statusBody(500, 'InternalError', `Internal error occurred: ${message}`), { ...contextOf(call), ...extra });
  }

  private refused(method: string, path: string): KubeTransportError {
    return new KubeTransportError(`${method} ${path}: the simulated API server has stopped`, { method, path, code: 'ECONNREFUSED' });
  }

  /** A named request without a name would address the collection instead: refused as the HTTP client does. */
  private nameOf(apiVersion: string, kind: string, name: string | undefined, verb: string): string {
    if (name === undefined || name === '') {
      throw new BatonError('KUBE_NO_NAME', `${verb} ${kind} (${apiVersion}): metadata.name is required`, { apiVersion, kind, verb });
    }
    return name;
  }
}

/** As the HTTP client: an answer always says what it is. */
function withKind(obj: KubeObject, apiVersion: string, kind: string): KubeObject {
  if (!isRecord(obj.metadata)) obj.metadata = {};
  if (typeof obj.apiVersion !== 'string') obj.apiVersion = apiVersion;
  if (typeof obj.kind !== 'string') obj.kind = kind;
  return obj;
}

/** The method and path the request would have had over HTTP, for error contexts. */
function contextOf(call: Call): { method: string; path: string } {
  const path = call.name === undefined ? collectionPath(call.info, call.namespace) : itemPath(call.info, call.namespace, call.name, call.subresource);
  return { method: METHODS[call.verb], path };
}

/** A query parameter the server reads as a non-negative integer (400 otherwise), as an option object. */
function nonNegative<K extends string>(name: K, value: number | undefined): { [P in K]?: number } {
  if (value === undefined) return {};
  if (!Number.isInteger(value) || value < 0) throw badRequest(`invalid value for query parameter ${name}: "${value}" (expected a non-negative integer)`);
  return { [name]: value } as { [P in K]?: number };
}

function isNotFound(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 404;
}
