/**
 * An informer: list, then watch from the list's resourceVersion, keeping a local cache of one kind.
 * A watch the server closes (or drops) is resumed from the last version seen; a 410 Gone (the version
 * is too old) relists and reconciles the cache, reporting what vanished meanwhile as deletions. Other
 * errors back off and retry. Controllers also write their own results through (`remember`) so that
 * they do not act twice on a cache that has not caught up yet.
 */
import type { KubeClient, WatchEventType } from '../../../kube/client.js';
import { KubeApiError } from '../../../kube/errors.js';
import type { KubeObject } from '../../../kube/object.js';
import { sleep, type Clock } from './clock.js';

export type InformerHandler = (type: Exclude<WatchEventType, 'BOOKMARK'>, obj: KubeObject, old: KubeObject | undefined) => void;

export function objectKey(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** Compares numeric resourceVersions (the simulator's); anything else counts as newer. */
function isOlder(candidate: KubeObject, current: KubeObject): boolean {
  const a = candidate.metadata.resourceVersion;
  const b = current.metadata.resourceVersion;
  if (a === undefined || b === undefined || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) < BigInt(b);
}

export interface InformerOptions {
  client: KubeClient;
  apiVersion: string;
  kind: string;
  clock: Clock;
  onEvent: InformerHandler;
  onError?: (err: unknown) => void;
}

/**
 * The cache: objects by key, and the same objects by namespace. Controllers list one namespace on every
 * reconcile (a Deployment's ReplicaSets, a ReplicaSet's pods): a scan of every object of the kind made
 * that quadratic in the number of workloads.
 */
class Cache {
  private readonly byKey = new Map<string, KubeObject>();
  /** Cluster-scoped objects under `undefined`, as they have no namespace. */
  private readonly byNamespace = new Map<string | undefined, Map<string, KubeObject>>();

  get(key: string): KubeObject | undefined {
    return this.byKey.get(key);
  }

  set(key: string, obj: KubeObject): void {
    const ns = obj.metadata.namespace;
    const previous = this.byKey.get(key);
    // A key names a namespace and a name: the namespace of what it holds does not change (guarded anyway).
    if (previous !== undefined && previous.metadata.namespace !== ns) this.byNamespace.get(previous.metadata.namespace)?.delete(key);
    this.byKey.set(key, obj);
    let bucket = this.byNamespace.get(ns);
    if (!bucket) this.byNamespace.set(ns, (bucket = new Map<string, KubeObject>()));
    bucket.set(key, obj);
  }

  delete(key: string): void {
    const previous = this.byKey.get(key);
    if (previous === undefined) return;
    this.byKey.delete(key);
    const ns = previous.metadata.namespace;
    const bucket = this.byNamespace.get(ns);
    bucket?.delete(key);
    if (bucket?.size === 0) this.byNamespace.delete(ns);
  }

  /** In the order objects were first cached (as one map of everything, filtered, would give them). */
  list(namespace?: string): KubeObject[] {
    if (namespace === undefined) return [...this.byKey.values()];
    return [...(this.byNamespace.get(namespace)?.values() ?? [])];
  }

  entries(): [string, KubeObject][] {
    return [...this.byKey];
  }
}

export class Informer {
  private readonly cache = new Cache();
  private readonly abort = new AbortController();
  private resourceVersion: string | undefined;
  private listedVersion: string | undefined;
  private loop: Promise<void> | undefined;
  private syncedResolve!: () => void;
  /** Resolves after the first successful list. */
  readonly synced = new Promise<void>((resolve) => (this.syncedResolve = resolve));
  /** Counts relists and resumed watches, for tests and diagnostics. */
  readonly stats = { lists: 0, watches: 0, errors: 0 };

  constructor(private readonly options: InformerOptions) {}

  get kind(): string {
    return this.options.kind;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.syncedResolve();
    await this.loop;
  }

  get(key: string): KubeObject | undefined {
    return this.cache.get(key);
  }

  list(namespace?: string): KubeObject[] {
    return this.cache.list(namespace);
  }

  /** Write-through after our own create/update, unless the cache already holds something newer. */
  remember(obj: KubeObject): void {
    const key = objectKey(obj);
    const current = this.cache.get(key);
    if (current && isOlder(obj, current)) return;
    this.cache.set(key, obj);
  }

  /** Write-through after our own delete. */
  forget(obj: KubeObject): void {
    const key = objectKey(obj);
    if (this.cache.get(key)?.metadata.uid === obj.metadata.uid) this.cache.delete(key);
  }

  private async run(): Promise<void> {
    const { client, apiVersion, kind, clock } = this.options;
    const signal = this.abort.signal;
    let backoffMs = 50;
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === undefined) await this.relist();
        this.stats.watches++;
        const events = client.watch(apiVersion, kind, undefined, { resourceVersion: this.resourceVersion ?? '', allowWatchBookmarks: true, signal });
        for await (const event of events) {
          if (event.object.metadata.resourceVersion) this.resourceVersion = event.object.metadata.resourceVersion;
          if (event.type !== 'BOOKMARK') this.apply(event.type, event.object);
          backoffMs = 50;
        }
      } catch (err) {
        if (signal.aborted) break;
        this.stats.errors++;
        if (err instanceof KubeApiError && (err.status === 410 || err.reason === 'Expired' || err.reason === 'Gone')) {
          // Relist at once; a server that keeps answering 410 to a fresh list's version gets the backoff.
          const fresh = this.resourceVersion === this.listedVersion;
          this.resourceVersion = undefined;
          if (!fresh) continue;
        }
        this.options.onError?.(err);
        await sleep(clock, backoffMs, signal);
        backoffMs = Math.min(backoffMs * 2, 2000);
      }
    }
  }

  private async relist(): Promise<void> {
    const { client, apiVersion, kind, onEvent } = this.options;
    this.stats.lists++;
    const result = await client.list(apiVersion, kind);
    const seen = new Set<string>();
    for (const obj of result.items) {
      // Lists omit apiVersion/kind on items; controllers rely on them.
      const full = { ...obj, apiVersion, kind };
      seen.add(objectKey(full));
      this.apply('ADDED', full);
    }
    for (const [key, old] of this.cache.entries()) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      onEvent('DELETED', old, old);
    }
    this.resourceVersion = result.resourceVersion;
    this.listedVersion = result.resourceVersion;
    this.syncedResolve();
  }

  private apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    const key = objectKey(obj);
    const old = this.cache.get(key);
    if (type === 'DELETED') {
      this.cache.delete(key);
      this.options.onEvent('DELETED', obj, old);
      return;
    }
    if (old && isOlder(obj, old)) return;
    this.cache.set(key, obj);
    this.options.onEvent(old ? 'MODIFIED' : 'ADDED', obj, old);
  }
}
