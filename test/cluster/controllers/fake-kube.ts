/**
 * An in-memory KubeClient with the API semantics the controllers rely on (resourceVersions, watches
 * that resume, 410 after compaction, generation bumps, status subresource, merge patch, background
 * garbage collection). For fast unit tests of controllers; end-to-end tests use the real simulator.
 */
import { randomUUID } from 'node:crypto';
import type { KubeClient, ListResult, WatchEvent, WatchOptions } from '../../../src/kube/client.js';
import { KubeApiError } from '../../../src/kube/errors.js';
import type { KubeObject, ObjectRef } from '../../../src/kube/object.js';
// The same RFC 7386 merge the simulated store applies.
import { mergePatch } from '../../../src/cluster/store/patch/merge.js';

interface Logged { rv: number; event: WatchEvent; key: string }

const clone = <T>(v: T): T => structuredClone(v);

export class FakeKube implements KubeClient {
  readonly objects = new Map<string, KubeObject>();
  private log: Logged[] = [];
  private rv = 0;
  private compactedAt = 0;
  private listeners = new Set<() => void>();
  private closers = new Set<() => void>();
  readonly calls: string[] = [];

  private key(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
    return `${apiVersion}|${kind}|${namespace ?? ''}|${name}`;
  }

  private emit(type: WatchEvent['type'], obj: KubeObject): void {
    this.log.push({ rv: this.rv, event: { type, object: clone(obj) }, key: `${obj.apiVersion}|${obj.kind}` });
    for (const l of [...this.listeners]) l();
  }

  private notFound(ref: ObjectRef): KubeApiError {
    return new KubeApiError(404, { reason: 'NotFound', code: 404, message: `${ref.kind} "${ref.name}" not found` });
  }

  resourceFor(): never {
    throw new Error('not supported by FakeKube');
  }

  apply(): never {
    throw new Error('not supported by FakeKube');
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    const obj = this.objects.get(this.key(ref.apiVersion, ref.kind, ref.namespace, ref.name));
    return obj ? clone(obj) : undefined;
  }

  async list(apiVersion: string, kind: string, namespace?: string): Promise<ListResult> {
    this.calls.push(`list ${kind}`);
    const items = [...this.objects.values()].filter((o) => o.apiVersion === apiVersion && o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace));
    return { items: clone(items), resourceVersion: String(this.rv) };
  }

  async *watch(apiVersion: string, kind: string, _ns: string | undefined, options: WatchOptions): AsyncIterable<WatchEvent> {
    this.calls.push(`watch ${kind} ${options.resourceVersion ?? ''}`);
    let from = Number(options.resourceVersion || this.rv);
    if (from < this.compactedAt) throw new KubeApiError(410, { reason: 'Expired', code: 410, message: 'too old resource version' });
    let closed = false;
    let wake: (() => void) | undefined;
    const listener = (): void => wake?.();
    const closer = (): void => {
      closed = true;
      wake?.();
    };
    this.listeners.add(listener);
    this.closers.add(closer);
    const onAbort = (): void => closer();
    options.signal?.addEventListener('abort', onAbort);
    try {
      while (!closed && !options.signal?.aborted) {
        const pending = this.log.filter((l) => l.rv > from && l.key === `${apiVersion}|${kind}`);
        for (const l of pending) {
          from = l.rv;
          yield clone(l.event);
        }
        if (pending.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      this.listeners.delete(listener);
      this.closers.delete(closer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Ends every open watch, as a server dropping connections does. */
  dropWatches(): void {
    for (const c of [...this.closers]) c();
  }

  /** Forgets history: watches from older versions get 410 Gone. */
  compact(): void {
    this.compactedAt = this.rv;
    this.log = [];
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    const stored = clone(obj);
    const ns = stored.metadata.namespace;
    const name = stored.metadata.name ?? `${stored.metadata.generateName ?? 'x-'}${randomUUID().slice(0, 5)}`;
    const key = this.key(stored.apiVersion, stored.kind, ns, name);
    if (this.objects.has(key)) throw new KubeApiError(409, { reason: 'AlreadyExists', code: 409, message: `${stored.kind} "${name}" already exists` });
    this.rv++;
    stored.metadata = { ...stored.metadata, name, uid: randomUUID(), resourceVersion: String(this.rv), generation: 1, creationTimestamp: new Date().toISOString() };
    this.objects.set(key, stored);
    this.calls.push(`create ${stored.kind} ${name}`);
    this.emit('ADDED', stored);
    return clone(stored);
  }

  private write(ref: ObjectRef, next: KubeObject, old: KubeObject): KubeObject {
    this.rv++;
    const specChanged = JSON.stringify(next.spec) !== JSON.stringify(old.spec);
    next.metadata = { ...next.metadata, uid: old.metadata.uid ?? '', creationTimestamp: old.metadata.creationTimestamp ?? '', resourceVersion: String(this.rv), generation: (old.metadata.generation ?? 1) + (specChanged ? 1 : 0) };
    this.objects.set(this.key(ref.apiVersion, ref.kind, ref.namespace, ref.name), next);
    this.emit('MODIFIED', next);
    return clone(next);
  }

  private existing(ref: ObjectRef): KubeObject {
    const old = this.objects.get(this.key(ref.apiVersion, ref.kind, ref.namespace, ref.name));
    if (!old) throw this.notFound(ref);
    return old;
  }

  async update(obj: KubeObject): Promise<KubeObject> {
    const ref = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace } as ObjectRef;
    const old = this.existing(ref);
    if (obj.metadata.resourceVersion !== old.metadata.resourceVersion) throw new KubeApiError(409, { reason: 'Conflict', code: 409, message: 'the object has been modified' });
    return this.write(ref, { ...clone(obj), status: old.status }, old);
  }

  async updateStatus(obj: KubeObject): Promise<KubeObject> {
    const ref = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace } as ObjectRef;
    const old = this.existing(ref);
    return this.write(ref, { ...clone(old), status: clone(obj.status) }, old);
  }

  async patch(ref: ObjectRef, patch: unknown, _type: string, options: { subresource?: string } = {}): Promise<KubeObject> {
    this.calls.push(`patch ${ref.kind} ${ref.name}${options.subresource ? `/${options.subresource}` : ''}`);
    const old = this.existing(ref);
    const merged = mergePatch(clone(old), patch) as KubeObject;
    const next = options.subresource === 'status' ? { ...clone(old), status: merged.status } : { ...merged, status: old.status };
    return this.write(ref, next, old);
  }

  async delete(ref: ObjectRef): Promise<KubeObject | undefined> {
    const key = this.key(ref.apiVersion, ref.kind, ref.namespace, ref.name);
    const old = this.objects.get(key);
    if (!old) return undefined;
    this.calls.push(`delete ${ref.kind} ${ref.name}`);
    this.objects.delete(key);
    this.rv++;
    this.emit('DELETED', { ...old, metadata: { ...old.metadata, resourceVersion: String(this.rv) } });
    // Background garbage collection of dependents.
    for (const dep of [...this.objects.values()]) {
      if (dep.metadata.ownerReferences?.some((r) => r.uid === old.metadata.uid)) {
        await this.delete({ apiVersion: dep.apiVersion, kind: dep.kind, name: dep.metadata.name ?? '', ...(dep.metadata.namespace ? { namespace: dep.metadata.namespace } : {}) });
      }
    }
    return clone(old);
  }

  all(kind: string, namespace?: string): KubeObject[] {
    return [...this.objects.values()].filter((o) => o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace));
  }
}
