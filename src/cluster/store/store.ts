/**
 * The simulated API server's storage with Kubernetes semantics. The HTTP layer resolves a URL to a
 * `ResourceType` through `store.registry` and calls one method per verb; errors are `ApiError`s that
 * carry the `Status` body and HTTP code to send.
 */
import type { KubeObject } from '../../kube/object.js';
import { Core, storageKey } from './core.js';
import { deleteCollection, deleteObject } from './delete.js';
import { badRequest, notFound } from './errors.js';
import { Journal, loadState } from './persist.js';
import { getScale, updateScale } from './scale.js';
import { parseFieldSelector, parseLabelSelector, pinnedName } from './selectors.js';
import { bootstrap } from './bootstrap.js';
import { afterCommit } from './admission/index.js';
import { createObject, patchObject, updateObject } from './write.js';
import type { ResourceRegistry } from './registry.js';
import type {
  DeleteOptions, DeleteResult, ListOptions, ListResult, PatchResult, PatchType, ResourceType, ScaleObject,
  StoreOptions, StoreWatchEvent, UpdateOptions, WatchHandle, WatchOptions, WriteOptions,
} from './types.js';
import { apiVersionOf } from './types.js';
import type { Watcher } from './watch.js';

interface ContinueToken {
  /** The last key served: `namespace/name`. */
  start: string;
  rv: number;
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify(t)).toString('base64url');
}

function decodeContinue(token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as ContinueToken;
    if (typeof t.start === 'string' && typeof t.rv === 'number') return t;
  } catch {
    // fall through
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

function parseRv(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === '' || rv === '0') return undefined;
  const n = Number(rv);
  if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid resource version: "${rv}"`);
  return n;
}

export class Store {
  private readonly core: Core;
  private readonly stoppers = new Set<() => void>();

  constructor(options: StoreOptions = {}) {
    this.core = new Core(options);
    if (options.dataDir !== undefined) {
      const state = loadState(options.dataDir);
      this.core.rv = state.rv;
      for (const e of state.objects) this.core.restore(e.key, e.object);
      this.core.hub.markCompactedAt(state.rv);
      this.core.journal = new Journal(options.dataDir);
      this.core.journal.compact(state);
    }
    const core = this.core;
    core.afterCommit.push((key, type, obj) => afterCommit(core, key, type, obj));
    bootstrap(this.core);
  }

  get registry(): ResourceRegistry {
    return this.core.registry;
  }

  /** The global resourceVersion (the version of the last committed write). */
  resourceVersion(): string {
    return String(this.core.rv);
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const obj = this.core.find(storageKey(type), type.namespaced ? namespace ?? '' : '', name);
    if (!obj) throw notFound(type, name);
    return this.core.present(obj, type);
  }

  list(type: ResourceType, namespace: string | undefined, options: ListOptions = {}): ListResult {
    const labels = parseLabelSelector(options.labelSelector);
    const fields = parseFieldSelector(options.fieldSelector, type.kind, type.schema !== undefined);
    const ns = type.namespaced ? namespace : undefined;
    let all = this.core.scan(storageKey(type), ns === '' ? undefined : ns, pinnedName(options.fieldSelector));
    const token = options.continue ? decodeContinue(options.continue) : undefined;
    if (token) all = all.filter((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}` > token.start);
    const matching = all.filter((o) => labels(o) && fields(o));
    const rv = token?.rv ?? this.core.rv;
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    if (limit === undefined || matching.length <= limit) {
      return { items: matching.map((o) => this.core.present(o, type)), resourceVersion: String(this.core.rv) };
    }
    const page = matching.slice(0, limit);
    const last = page[page.length - 1] as KubeObject;
    const result: ListResult = {
      items: page.map((o) => this.core.present(o, type)),
      resourceVersion: String(rv),
      continue: encodeContinue({ start: `${last.metadata.namespace ?? ''}/${last.metadata.name ?? ''}`, rv }),
    };
    // Like the real server, the remaining count is only known without selectors.
    if (!options.labelSelector && !options.fieldSelector) result.remainingItemCount = matching.length - limit;
    return result;
  }

  /**
   * Streams events to `onEvent` until `stop()`. Throws 410 Gone (ApiError, reason Expired) when
   * `resourceVersion` is older than the retained window.
   */
  watch(type: ResourceType, namespace: string | undefined, options: WatchOptions, onEvent: (ev: StoreWatchEvent) => void): WatchHandle {
    const labels = parseLabelSelector(options.labelSelector);
    const fields = parseFieldSelector(options.fieldSelector, type.kind, type.schema !== undefined);
    const ns = type.namespaced && namespace !== '' ? namespace : undefined;
    const bookmarkObject = (annotations?: Record<string, string>): Record<string, unknown> => ({
      kind: type.kind,
      apiVersion: apiVersionOf(type),
      metadata: { resourceVersion: String(this.core.rv), ...(annotations ? { annotations } : {}) },
    });
    const w: Watcher = {
      key: storageKey(type),
      namespace: ns,
      matches: (o) => labels(o) && fields(o),
      present: (o) => this.core.present(o, type),
      emit: onEvent,
      bookmark: options.allowWatchBookmarks ? () => onEvent({ type: 'BOOKMARK', object: bookmarkObject() }) : undefined,
    };
    const from = parseRv(options.resourceVersion);
    if (from === undefined || options.sendInitialEvents) {
      for (const o of this.core.scan(w.key, ns)) if (w.matches(o)) onEvent({ type: 'ADDED', object: w.present(o) });
      if (options.sendInitialEvents && options.allowWatchBookmarks) {
        onEvent({ type: 'BOOKMARK', object: bookmarkObject({ 'k8s.io/initial-events-end': 'true' }) });
      }
    } else {
      this.core.hub.replay(w, from);
    }
    const remove = this.core.hub.add(w);
    const interval = this.core.options.bookmarkIntervalMs ?? 60_000;
    const timer = w.bookmark && interval > 0 ? setInterval(w.bookmark, interval) : undefined;
    timer?.unref();
    const stop = (): void => {
      remove();
      if (timer) clearInterval(timer);
      this.stoppers.delete(stop);
    };
    this.stoppers.add(stop);
    return { stop };
  }

  create(type: ResourceType, namespace: string | undefined, obj: unknown, options: WriteOptions = {}): KubeObject {
    return this.core.present(createObject(this.core, type, namespace, obj, options), type);
  }

  /** PUT. A stale `metadata.resourceVersion` is 409 Conflict; `subresource: 'status'` changes only status. */
  update(type: ResourceType, namespace: string | undefined, name: string, obj: unknown, options: UpdateOptions = {}): KubeObject {
    if (options.subresource === 'scale') return this.updateScale(type, namespace, name, obj, options);
    return this.core.present(updateObject(this.core, type, namespace, name, obj, options), type);
  }

  /** PATCH of any type; `apply` may create (then `created` is true). On `scale`, the object is the Scale. */
  patch(type: ResourceType, namespace: string | undefined, name: string, patchType: PatchType, body: unknown, options: UpdateOptions = {}): PatchResult {
    const result = patchObject(this.core, type, namespace, name, patchType, body, options);
    if (options.subresource === 'scale') return result;
    return { object: this.core.present(result.object, type), created: result.created };
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, options: DeleteOptions = {}): DeleteResult {
    const result = deleteObject(this.core, type, namespace, name, options);
    return { ...result, object: this.core.present(result.object, type) };
  }

  deleteCollection(type: ResourceType, namespace: string | undefined, listOptions: ListOptions = {}, options: DeleteOptions = {}): KubeObject[] {
    const items = this.list(type, namespace, { ...listOptions, limit: 0 }).items;
    return deleteCollection(this.core, type, items, options).map((o) => this.core.present(o, type));
  }

  getScale(type: ResourceType, namespace: string | undefined, name: string): ScaleObject {
    return getScale(this.core, type, namespace, name);
  }

  updateScale(type: ResourceType, namespace: string | undefined, name: string, scale: unknown, options: WriteOptions = {}): ScaleObject {
    return updateScale(this.core, type, namespace, name, scale, options);
  }

  /** Stops watches' timers and compacts the journal into a snapshot. */
  async close(): Promise<void> {
    for (const stop of [...this.stoppers]) stop();
    const journal = this.core.journal;
    if (!journal) return;
    const objects: { key: string; object: KubeObject }[] = [];
    for (const [key, c] of this.core.collections) for (const b of c.values()) for (const o of b.values()) objects.push({ key, object: o });
    journal.compact({ rv: this.core.rv, objects });
    journal.close();
    this.core.journal = undefined;
  }
}
