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
  /** Whole collections also followed, for context (the pods that explain a workload's wait). */
  context?: readonly { apiVersion: string; kind: string; namespace: string | undefined }[];
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
}

export function waitFor(options: WaitOptions): Promise<Exclude<WaitVerdict, { kind: 'waiting' }>> {
  const { refs, signal, clock } = options;
  const observed = new Map<string, KubeObject | undefined>();
  const inner = new AbortController();
  const total = new Set(refs.map(observedKey)).size;
  const contextGroups: Group[] = (options.context ?? []).map((c) => ({ ...c, names: undefined, all: new Map() }));
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
    for (const group of [...groupsOf(refs), ...contextGroups]) {
      followGroup(options, group, observed, inner.signal, check).catch((err: unknown) => finish(() => reject(asError(err))));
    }
    void (async () => {
      while (!finished) {
        await clock.sleep(options.tickMs ?? 1000, inner.signal).catch(() => undefined);
        check();
      }
    })();
  });
}

function groupsOf(refs: readonly ObjectRef[]): Group[] {
  const groups = new Map<string, Group>();
  for (const r of refs) {
    const id = `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}`;
    const names = groups.get(id)?.names ?? new Set<string>();
    const g = groups.get(id) ?? { apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace, names, all: new Map<string, KubeObject>() };
    names.add(r.name);
    groups.set(id, g);
  }
  return [...groups.values()];
}

async function followGroup(options: WaitOptions, g: Group, observed: Map<string, KubeObject | undefined>, signal: AbortSignal, changed: () => void): Promise<void> {
  const { client, clock } = options;
  const keyOf = (name: string): string => observedKey({ apiVersion: g.apiVersion, kind: g.kind, name, ...(g.namespace !== undefined ? { namespace: g.namespace } : {}) });
  // A single object is narrowed server-side; several share one list+watch of their kind and namespace.
  const only = g.names?.size === 1 ? [...g.names][0] : undefined;
  const selector = only !== undefined ? { fieldSelector: `metadata.name=${only}` } : {};
  while (!signal.aborted) {
    let pause = 100;
    try {
      const list = await client.list(g.apiVersion, g.kind, g.namespace, selector);
      const byName = new Map(list.items.map((o) => [o.metadata.name ?? '', o]));
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

function isGone(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { status?: unknown }).status === 410;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
