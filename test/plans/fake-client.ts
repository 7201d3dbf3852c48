/**
 * A small in-memory KubeClient for engine unit tests: resourceVersions, list+watch, server-side apply
 * with a field-manager conflict rule, and hooks to inject faults and to play a controller.
 */
import type { KubeClient, ListResult, ResourceInfo, WatchEvent, WatchOptions } from '../../src/kube/client.js';
import { KubeApiError } from '../../src/kube/errors.js';
import { refKey, refOf, type KubeObject, type ObjectRef } from '../../src/kube/object.js';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'apply' | 'delete';

interface Watcher {
  apiVersion: string;
  kind: string;
  namespace: string | undefined;
  push(ev: WatchEvent): void;
}

export class FakeKube implements KubeClient {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: { verb: Verb; key: string }[] = [];
  /** Returns an error to throw for a call, or undefined. */
  fault: (verb: Verb, ref: ObjectRef | undefined) => Error | undefined = () => undefined;
  /** Called after every write, to play a controller (e.g. mark objects ready). */
  onWrite: (obj: KubeObject, client: FakeKube) => void = () => undefined;
  /** `refKey` -> a manager owning `.spec` fields: apply without force conflicts. */
  readonly foreignManagers = new Map<string, string>();
  private rv = 1;
  private readonly watchers = new Set<Watcher>();

  async resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    return { group: group ?? '', version: version ?? '', resource: `${kind.toLowerCase()}s`, kind, namespaced: kind !== 'Namespace' && kind !== 'CustomResourceDefinition' };
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    this.record('get', ref);
    const obj = this.objects.get(refKey(plain(ref)));
    return obj && structuredClone(obj);
  }

  async list(apiVersion: string, kind: string, namespace?: string): Promise<ListResult> {
    this.record('list', undefined, `${apiVersion}/${kind}/${namespace ?? ''}`);
    const items = [...this.objects.values()].filter((o) => o.apiVersion === apiVersion && o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace));
    return { items: items.map((o) => structuredClone(o)), resourceVersion: String(this.rv) };
  }

  watch(apiVersion: string, kind: string, namespace: string | undefined, options: WatchOptions): AsyncIterable<WatchEvent> {
    this.record('watch', undefined, `${apiVersion}/${kind}/${namespace ?? ''}`);
    const queue: WatchEvent[] = [];
    let wake: (() => void) | undefined;
    const watcher: Watcher = { apiVersion, kind, namespace, push: (ev) => { queue.push(ev); wake?.(); } };
    this.watchers.add(watcher);
    const watchers = this.watchers;
    const signal = options.signal;
    return {
      async *[Symbol.asyncIterator]() {
        try {
          while (signal?.aborted !== true) {
            const next = queue.shift();
            if (next) {
              yield next;
              continue;
            }
            await new Promise<void>((resolve) => {
              wake = resolve;
              signal?.addEventListener('abort', () => resolve(), { once: true });
            });
            wake = undefined;
          }
        } finally {
          watchers.delete(watcher);
        }
      },
    };
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    this.record('create', refOf(obj));
    if (this.objects.has(refKey(refOf(obj)))) throw apiError(409, 'AlreadyExists', `${obj.kind} ${obj.metadata.name} already exists`);
    return this.store(obj, 'ADDED');
  }

  async update(obj: KubeObject): Promise<KubeObject> {
    this.record('update', refOf(obj));
    const cur = this.objects.get(refKey(refOf(obj)));
    if (!cur) throw apiError(404, 'NotFound', `${obj.metadata.name} not found`);
    if (obj.metadata.resourceVersion !== cur.metadata.resourceVersion) throw apiError(409, 'Conflict', 'the object has been modified');
    return this.store(obj, 'MODIFIED');
  }

  async updateStatus(obj: KubeObject): Promise<KubeObject> {
    return this.store(obj, 'MODIFIED');
  }

  async patch(): Promise<KubeObject> {
    throw new Error('patch is not used by the engine');
  }

  async apply(obj: KubeObject, options: { fieldManager: string; force?: boolean }): Promise<KubeObject> {
    this.record('apply', refOf(obj));
    const key = refKey(refOf(obj));
    const other = this.foreignManagers.get(key);
    if (other !== undefined && options.force !== true) {
      throw apiError(409, 'Conflict', `Apply failed with 1 conflict: conflict with "${other}" using apps/v1: .spec.replicas`, [
        { type: 'FieldManagerConflict', message: `conflict with "${other}" using apps/v1`, field: '.spec.replicas' },
      ]);
    }
    const cur = this.objects.get(key);
    const merged: KubeObject = { ...(cur ?? {}), ...structuredClone(obj), metadata: { ...(cur?.metadata ?? {}), ...structuredClone(obj.metadata) } };
    if (cur?.['status'] !== undefined) merged['status'] = cur['status'];
    return this.store(merged, cur ? 'MODIFIED' : 'ADDED');
  }

  async delete(ref: ObjectRef): Promise<KubeObject | undefined> {
    this.record('delete', ref);
    const key = refKey(plain(ref));
    const cur = this.objects.get(key);
    if (!cur) return undefined;
    this.objects.delete(key);
    this.rv++;
    this.notify({ type: 'DELETED', object: structuredClone(cur) });
    return cur;
  }

  /** Plays a controller: replaces an object's status. */
  setStatus(ref: ObjectRef, status: Record<string, unknown>): void {
    const cur = this.objects.get(refKey(plain(ref)));
    if (cur) this.store({ ...cur, status }, 'MODIFIED', false);
  }

  count(verb: Verb, name?: string): number {
    return this.calls.filter((c) => c.verb === verb && (name === undefined || c.key.endsWith(`/${name}`))).length;
  }

  private record(verb: Verb, ref: ObjectRef | undefined, key = ref ? refKey(plain(ref)) : ''): void {
    this.calls.push({ verb, key });
    const err = this.fault(verb, ref);
    if (err) throw err;
  }

  private store(obj: KubeObject, type: 'ADDED' | 'MODIFIED', hook = true): KubeObject {
    const copy = structuredClone(obj);
    copy.metadata.resourceVersion = String(++this.rv);
    this.objects.set(refKey(refOf(copy)), copy);
    this.notify({ type, object: structuredClone(copy) });
    if (hook) this.onWrite(copy, this);
    return structuredClone(this.objects.get(refKey(refOf(copy))) ?? copy);
  }

  private notify(ev: WatchEvent): void {
    for (const w of this.watchers) {
      if (w.apiVersion === ev.object.apiVersion && w.kind === ev.object.kind && (w.namespace === undefined || w.namespace === ev.object.metadata.namespace)) w.push(ev);
    }
  }
}

export function apiError(status: number, reason: string, message: string, causes?: { type: string; message: string; field: string }[]): KubeApiError {
  return new KubeApiError(status, { kind: 'Status', status: 'Failure', reason, message, code: status, ...(causes ? { details: { causes } } : {}) });
}

function plain(ref: ObjectRef): ObjectRef {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}) };
}
