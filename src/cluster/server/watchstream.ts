/**
 * Serving a watch: chunked HTTP/1.1, one JSON event per line. A resourceVersion older than the
 * store's window is answered the way the real server does, with 200 and one ERROR event carrying a
 * 410 Expired Status, then the end of the stream; clients relist.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../../kube/object.js';
import { ApiError } from '../store/errors.js';
import type { Store } from '../store/store.js';
import type { ResourceType, StoreWatchEvent, WatchOptions } from '../store/types.js';
import { type IncludeObject, partialObjectMetadata, toTable } from './tables.js';

export interface WatchRequest {
  store: Store;
  type: ResourceType;
  namespace: string | undefined;
  options: WatchOptions;
  timeoutMs: number;
  /** Each event's object becomes a one-row Table (kubectl get -w). */
  table?: { include: IncludeObject };
  /** Each event's object becomes PartialObjectMetadata (metadata-only informers). */
  metadataOnly?: boolean;
  /** Fault injection: cut the connection after this long. */
  dropAfterMs?: number;
}

/** A watcher this far behind is cut off, as the real server drops slow watchers; it re-watches. */
export const MAX_WATCH_BACKLOG_BYTES = 16 * 1024 * 1024;

const TABLE_MEDIA_TYPE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

export function serveWatch(req: IncomingMessage, res: ServerResponse, w: WatchRequest): void {
  let headerSent = false;
  let closed = false;
  const pending: string[] = [];
  const sendHeaders = (): void => {
    if (headerSent) return;
    headerSent = true;
    res.writeHead(200, { 'Content-Type': w.table ? TABLE_MEDIA_TYPE : 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
  };
  let first = true;
  const encode = (ev: StoreWatchEvent): string => {
    if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') return `${JSON.stringify(ev)}\n`;
    if (w.metadataOnly) return `${JSON.stringify({ type: ev.type, object: partialObjectMetadata(ev.object as KubeObject) })}\n`;
    if (!w.table) return `${JSON.stringify(ev)}\n`;
    const object = toTable(w.type, [ev.object as KubeObject], { include: w.table.include, noHeaders: !first });
    first = false;
    return `${JSON.stringify({ type: ev.type, object })}\n`;
  };
  // Events arrive synchronously during `store.watch` (initial ADDED events, replay): buffer until the
  // headers are out, then write in one go.
  let ready = false;
  const onEvent = (ev: StoreWatchEvent): void => {
    if (closed) return;
    const line = encode(ev);
    if (!ready) pending.push(line);
    else if (res.writableLength > MAX_WATCH_BACKLOG_BYTES) {
      finish();
      res.destroy();
    } else res.write(line);
  };
  let handle: { stop(): void } | undefined;
  try {
    handle = w.store.watch(w.type, w.namespace, w.options, onEvent);
  } catch (err) {
    if (err instanceof ApiError && err.httpCode === 410) {
      sendHeaders();
      res.end(`${JSON.stringify({ type: 'ERROR', object: err.status })}\n`);
      return;
    }
    throw err;
  }
  sendHeaders();
  ready = true;
  if (pending.length > 0) res.write(pending.join(''));
  function finish(): void {
    if (closed) return;
    closed = true;
    handle?.stop();
    clearTimeout(timer);
    if (dropTimer) clearTimeout(dropTimer);
  }
  // Declared after `finish`, which only runs once these exist (events before this point are buffered).
  const timer = setTimeout(() => {
    finish();
    res.end();
  }, w.timeoutMs);
  const dropTimer = w.dropAfterMs !== undefined ? setTimeout(() => {
    finish();
    res.destroy();
  }, w.dropAfterMs) : undefined;
  req.on('close', finish);
  res.on('close', finish);
}
