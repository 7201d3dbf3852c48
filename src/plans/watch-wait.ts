/**
 * Waiting on objects by watching, not polling: one list+watch per (kind, namespace) of the batch,
 * re-evaluating the verdict on every event, so a step finishes as soon as the cluster is ready.
 * A slow ticker re-evaluates too, for verdicts that depend on time (image-pull grace periods).
 * A dropped or expired watch (410 Gone) is re-listed; transient API errors are retried here.
 */
import type { KubeClient } from '../kube/client.js';
import type { KubeObject, ObjectRef } from '../kube/object.js';
import type { Clock } from './clock.js';

export type WaitVerdict =
  | { kind: 'done' }
  | { kind: 'waiting'; object: string; message: string }
  | { kind: 'failed'; object: string; reason: string; message: string };

export type Observed = ReadonlyMap<string, KubeObject | undefined>;

export interface WaitOptions {
  client: KubeClient;
  refs: readonly ObjectRef[];
  /** Called with the latest observed object per ref (`observedKey(ref)`); `undefined` = does not exist. */
  evaluate(observed: Observed, context: readonly KubeObject[]): WaitVerdict;
  /**
   * Whole collections also followed, for context (the pods that explain a workload's wait). With
   * `resourceVersion`, the collection is known to hold nothing of interest before it (the pods of
   * workloads created at or after it): watched from there, starting empty, without a first list.
   */
  context?: readonly { apiVersion: string; kind: string; namespace: string | undefined; resourceVersion?: string }[];
  /**
   * Context is followed only once the wait has lasted this long (on `clock`); absent: from the start.
   * Context never turns a waiting verdict into done (it explains a wait, or fails it), so a wait that
   * ends sooner needs none of it: issue #20, a pod watch opened and torn down per workload applied,
   * most of them ready at the next event. A collection watched from a resourceVersion misses nothing
   * by starting later (the watch replays from there); one without is listed then, as it is now.
   */
  contextAfterMs?: number;
  /**
   * Objects of `refs` as the server last answered them (the apply answers): a kind and namespace whose
   * objects are all here starts from them, watched from their oldest resourceVersion, without a first
   * list (issue #20: a list per workload applied). Dropped watches and 410 Gone re-list as usual.
   */
  known?: readonly KubeObject[];
  onWaiting?(verdict: Extract<WaitVerdict, { kind: 'waiting' }>): void;
  /** Aborting (timeout, shutdown) rejects with the signal's reason. */
  signal: AbortSignal;
  clock: Clock;
  isTransient(err: unknown): boolean;
  tickMs?: number;
}

export const observedKey = (r: ObjectRef): string => `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`;

interface Group {
  apiVersion: string;
  kind: string;
  namespace: string | undefined;
  /** `undefined`: every object of the collection (context), kept in `all`. */
  names: Set<string> | undefined;
  all: Map<string, KubeObject>;
  /** Where the first watch starts instead of a list, with what is known at that point. */
  start?: { resourceVersion: string; objects: readonly KubeObject[] };
}

export function waitFor(options: WaitOptions): Promise<Exclude<WaitVerdict, { kind: 'waiting' }>> {
  const { refs, signal, clock } = options;
  const observed = new Map<string, KubeObject | undefined>();
  const inner = new AbortController();
  const total = new Set(refs.map(observedKey)).size;
  const contextGroups: Group[] = (options.context ?? []).map(({ resourceVersion, ...c }) => ({ ...c, names: undefined, all: new Map(), ...(resourceVersion !== undefined ? { start: { resourceVersion, objects: [] } } : {}) }));
  return new Promise((resolve, reject) => {
    let finished = false;
    let lastMessage = '';
    const finish = (settle: () => void): void => {
      if (finished) return;
      finished = true;
      inner.abort();
      signal.removeEventListener('abort', onAbort);
      settle();
    };
    const check = (): void => {
      if (finished || observed.size < total) return;
      const verdict = options.evaluate(observed, contextGroups.flatMap((g) => [...g.all.values()]));
      if (verdict.kind !== 'waiting') {
        finish(() => resolve(verdict));
        return;
      }
      const message = `${verdict.object}: ${verdict.message}`;
      if (message !== lastMessage) {
        lastMessage = message;
        options.onWaiting?.(verdict);
      }
    };
    const onAbort = (): void => finish(() => reject(asError(signal.reason)));
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    if (refs.length === 0) {
      finish(() => resolve({ kind: 'done' }));
      return;
    }
    const follow = (group: Group): void => {
      followGroup(options, group, observed, inner.signal, check).catch((err: unknown) => finish(() => reject(asError(err))));
    };
    for (const group of groupsOf(refs, options.known ?? [])) follow(group);
    if (options.contextAfterMs === undefined) contextGroups.forEach(follow);
    else if (contextGroups.length > 0) {
      void clock.sleep(options.contextAfterMs, inner.signal).then(() => {
        if (!finished) contextGroups.forEach(follow);
      }, () => undefined);
    }
    void (async () => {
      while (!finished) {
        await clock.sleep(options.tickMs ?? 1000, inner.signal).catch(() => undefined);
        check();
      }
    })();
  });
}

function groupsOf(refs: readonly ObjectRef[], known: readonly KubeObject[]): Group[] {
  const groups = new Map<string, Group>();
  for (const r of refs) {
    const id = `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}`;
    const names = groups.get(id)?.names ?? new Set<string>();
    const g = groups.get(id) ?? { apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace, names, all: new Map<string, KubeObject>() };
    names.add(r.name);
    groups.set(id, g);
  }
  const answered = new Map(known.map((o) => [observedKey({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name ?? '', ...(o.metadata.namespace !== undefined ? { namespace: o.metadata.namespace } : {}) }), o]));
  for (const g of groups.values()) {
    const objects = [...(g.names ?? [])].map((name) => answered.get(observedKey({ apiVersion: g.apiVersion, kind: g.kind, name, ...(g.namespace !== undefined ? { namespace: g.namespace } : {}) })));
    if (objects.some((o) => o === undefined)) continue;
    const present = objects.filter((o): o is KubeObject => o !== undefined);
    const resourceVersion = oldestVersion(present);
    if (resourceVersion !== undefined) g.start = { resourceVersion, objects: present };
  }
  return [...groups.values()];
}

/**
 * The oldest of the objects' resourceVersions, or undefined when one has none or one is not a decimal
 * number (Kubernetes' are etcd revisions; anything else is not compared, and the group is listed).
 */
export function oldestVersion(objects: readonly KubeObject[]): string | undefined {
  let oldest: bigint | undefined;
  for (const o of objects) {
    const rv = o.metadata.resourceVersion;
    if (rv === undefined || !/^\d+$/.test(rv)) return undefined;
    const n = BigInt(rv);
    if (oldest === undefined || n < oldest) oldest = n;
  }
  return oldest?.toString();
}

async function followGroup(options: WaitOptions, g: Group, observed: Map<string, KubeObject | undefined>, signal: AbortSignal, changed: () => void): Promise<void> {
  const { client, clock } = options;
  const keyOf = (name: string): string => observedKey({ apiVersion: g.apiVersion, kind: g.kind, name, ...(g.namespace !== undefined ? { namespace: g.namespace } : {}) });
  // A single object is narrowed server-side; several share one list+watch of their kind and namespace.
  const only = g.names?.size === 1 ? [...g.names][0] : undefined;
  const selector = only !== undefined ? { fieldSelector: `metadata.name=${only}` } : {};
  // The first round may start from what is known (see Group.start); any later one lists.
  let start = g.start;
  while (!signal.aborted) {
    let pause = 100;
    try {
      const list = start ?? await listed(client, g, selector);
      start = undefined;
      const byName = new Map(list.objects.map((o) => [o.metadata.name ?? '', o]));
      if (g.names === undefined) {
        g.all.clear();
        for (const [name, o] of byName) g.all.set(name, o);
      } else for (const name of g.names) observed.set(keyOf(name), byName.get(name));
      changed();
      const events = client.watch(g.apiVersion, g.kind, g.namespace, { ...selector, resourceVersion: list.resourceVersion, allowWatchBookmarks: true, signal });
      for await (const ev of events) {
        const name = ev.object.metadata.name ?? '';
        if (ev.type === 'BOOKMARK') continue;
        if (g.names === undefined) {
          if (ev.type === 'DELETED') g.all.delete(name);
          else g.all.set(name, ev.object);
        } else if (g.names.has(name)) observed.set(keyOf(name), ev.type === 'DELETED' ? undefined : ev.object);
        else continue;
        changed();
      }
    } catch (err) {
      if (signal.aborted) return;
      if (!options.isTransient(err) && !isGone(err)) throw err;
      pause = 500;
    }
    await clock.sleep(pause, signal).catch(() => undefined);
  }
}

async function listed(client: KubeClient, g: Group, selector: { fieldSelector?: string }): Promise<{ resourceVersion: string; objects: readonly KubeObject[] }> {
  const list = await client.list(g.apiVersion, g.kind, g.namespace, selector);
  return { resourceVersion: list.resourceVersion, objects: list.items };
}

function isGone(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { status?: unknown }).status === 410;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
