/**
 * A watch served in-process: the store's events for one watcher, handed to the consumer as an async
 * iteration, in the order the store emits them (initial or replayed events first, then live ones,
 * then bookmarks as they come). It ends the way an HTTP watch of the simulated server ends: cleanly
 * at its timeout or when the caller aborts, with 410 Gone (a KubeApiError) for a version older than
 * the window, and with a KubeTransportError when it is cut (fault injection's dropped watch, a
 * consumer too far behind, the server stopping).
 */
import type { WatchEvent } from '../../../kube/client.js';
import { KubeTransportError } from '../../../kube/errors.js';
import type { KubeObject } from '../../../kube/object.js';
import type { Store } from '../../store/store.js';
import type { ResourceType, StoreWatchEvent, WatchOptions } from '../../store/types.js';
import { jsonCopy } from './json.js';

/**
 * A watcher this many events behind is cut off, as the HTTP server cuts a watcher 16 MiB behind (both
 * then re-watch from their last version). Events queue only while the consumer is not running.
 */
export const MAX_LOCAL_WATCH_BACKLOG = 65_536;

export interface LocalWatchSpec {
  store: Store;
  type: ResourceType;
  namespace: string | undefined;
  options: WatchOptions;
  /** The watch ends cleanly after this long (the request's timeoutSeconds, or the server's default). */
  timeoutMs: number;
  /** Fault injection: cut the watch after this long. */
  dropAfterMs?: number;
  signal?: AbortSignal;
  /** For errors: the request as it would have gone over HTTP. */
  context: { method: string; path: string };
  /** Called with a function that cuts this watch (the server stopping); returns the unregistration. */
  register(cut: () => void): () => void;
  /** Throws the client's error for what `store.watch` threw (410 Gone, a bad selector). */
  failed(err: unknown): never;
}

type End = 'timeout' | 'aborted' | 'dropped' | 'behind' | 'closed';

const CUT_MESSAGES: Readonly<Record<Exclude<End, 'timeout' | 'aborted'>, string>> = {
  dropped: 'watch stream broke: aborted (injected fault)',
  behind: `watch stream broke: the consumer fell ${MAX_LOCAL_WATCH_BACKLOG} events behind`,
  closed: 'watch stream broke: the API server stopped',
};

function toEvent(ev: StoreWatchEvent, type: ResourceType, apiVersion: string): WatchEvent {
  const object = jsonCopy(ev.object) as KubeObject;
  // As the HTTP client does: an object always says what it is.
  if (typeof object.apiVersion !== 'string') object.apiVersion = apiVersion;
  if (typeof object.kind !== 'string') object.kind = type.kind;
  return { type: ev.type as WatchEvent['type'], object };
}

// A function, not an inline test: TypeScript would keep the narrowing from before an await.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

export async function* localWatch(spec: LocalWatchSpec, apiVersion: string): AsyncGenerator<WatchEvent> {
  const { signal } = spec;
  if (isAborted(signal)) return;
  const queue: StoreWatchEvent[] = [];
  let head = 0;
  let end: End | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const finish = (why: End): void => {
    end ??= why;
    notify();
  };
  let handle: { stop(): void } | undefined;
  try {
    handle = spec.store.watch(spec.type, spec.namespace, spec.options, (ev) => {
      if (end !== undefined) return;
      queue.push(ev);
      if (queue.length - head > MAX_LOCAL_WATCH_BACKLOG) finish('behind');
      else notify();
    });
  } catch (err) {
    spec.failed(err);
  }
  const timer = setTimeout(() => finish('timeout'), spec.timeoutMs);
  timer.unref();
  const dropTimer = spec.dropAfterMs !== undefined ? setTimeout(() => finish('dropped'), spec.dropAfterMs) : undefined;
  dropTimer?.unref();
  const onAbort = (): void => finish('aborted');
  signal?.addEventListener('abort', onAbort, { once: true });
  const unregister = spec.register(() => finish('closed'));
  try {
    for (;;) {
      // An aborted watch ends at once, dropping what was still queued (as the HTTP client's does).
      if (end === 'aborted' || isAborted(signal)) return;
      if (head < queue.length) {
        const ev = queue[head++] as StoreWatchEvent;
        // Consumed slots are dropped now and then, so a watch that never quite catches up stays bounded.
        if (head === queue.length || (head > 4096 && head * 2 > queue.length)) {
          queue.splice(0, head);
          head = 0;
        }
        yield toEvent(ev, spec.type, apiVersion);
        continue;
      }
      if (end !== undefined) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    if (end !== 'timeout') throw new KubeTransportError(`${spec.context.method} ${spec.context.path}: ${CUT_MESSAGES[end]}`, { ...spec.context, watch: true });
  } finally {
    handle?.stop();
    clearTimeout(timer);
    if (dropTimer) clearTimeout(dropTimer);
    signal?.removeEventListener('abort', onAbort);
    unregister();
  }
}
