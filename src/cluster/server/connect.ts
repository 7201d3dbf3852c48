/**
 * Subresources that are not stored objects: `pods/log` (the simulated containers' output, also
 * followed with `follow=true`), `pods/exec`, `pods/attach` and `pods/portforward` (answered with a
 * clear "not supported" error, since no container runs), and `serviceaccounts/token` (TokenRequest).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../../kube/object.js';
import { ApiError, badRequest, methodNotAllowed } from '../store/errors.js';
import type { Store } from '../store/store.js';
import type { ResourceType } from '../store/types.js';
import type { AccessControl, UserInfo } from './auth/index.js';
import { tokenRequest } from './auth/reviews.js';
import { decodeObjectBody } from './body.js';
import { boolParam } from './params.js';
import { type LogLine, type LogOptions, formatLogs, podLogs } from './podlogs.js';
import { readBody, sendJson } from './respond.js';

export interface ConnectRequest {
  store: Store;
  access: AccessControl;
  user: UserInfo;
  type: ResourceType;
  namespace: string | undefined;
  name: string;
  subresource: string;
  req: IncomingMessage;
  res: ServerResponse;
  q: URLSearchParams;
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid value for query parameter ${name}: "${raw}"`);
  return n;
}

export function logOptions(q: URLSearchParams): LogOptions {
  const opts: LogOptions = { timestamps: boolParam(q, 'timestamps') };
  const tail = intParam(q, 'tailLines');
  const limit = intParam(q, 'limitBytes');
  const since = intParam(q, 'sinceSeconds');
  const sinceTime = q.get('sinceTime');
  if (tail !== undefined) opts.tailLines = tail;
  if (limit !== undefined) opts.limitBytes = limit;
  if (since !== undefined) opts.sinceSeconds = since;
  if (sinceTime) {
    const t = Date.parse(sinceTime);
    if (Number.isNaN(t)) throw badRequest(`invalid value for query parameter sinceTime: "${sinceTime}"`);
    opts.sinceTime = t;
  }
  return opts;
}

const NOT_SUPPORTED: Record<string, string> = {
  exec: 'exec',
  attach: 'attach',
  portforward: 'port-forward',
};

export async function serveConnect(x: ConnectRequest): Promise<void> {
  const method = x.req.method ?? 'GET';
  if (x.type.resource === 'serviceaccounts' && x.subresource === 'token') {
    if (method !== 'POST') throw methodNotAllowed(`the server does not allow this method on the requested resource (${method} serviceaccounts/token)`);
    const raw = await readBody(x.req);
    const body = raw.length > 0 ? decodeObjectBody(raw, x.req.headers['content-type']) : {};
    sendJson(x.res, 201, await tokenRequest(x.name, body, { store: x.store, user: x.user, auth: x.access.auth, rbac: x.access.rbac, namespace: x.namespace }));
    return;
  }
  const pod = x.store.get(x.type, x.namespace, x.name);
  const unsupported = NOT_SUPPORTED[x.subresource];
  if (unsupported !== undefined) {
    throw new ApiError(400, 'BadRequest', `${unsupported} is not supported by the simulated cluster: no container runs for pod ${x.name} (Baton's simulated Kubernetes API; see docs/cluster.md)`);
  }
  if (method !== 'GET') throw methodNotAllowed(`the server does not allow this method on the requested resource (${method} pods/log)`);
  const container = x.q.get('container') ?? undefined;
  const previous = boolParam(x.q, 'previous');
  const opts = logOptions(x.q);
  const first = podLogs(pod, container, previous);
  if (first.kind === 'error') throw badRequest(first.message);
  const follow = boolParam(x.q, 'follow') && !first.finished;
  x.res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private', ...(follow ? {} : { 'Content-Length': Buffer.byteLength(formatLogs(first.lines, opts, Date.now())) }) });
  x.res.write(formatLogs(first.lines, opts, Date.now()));
  if (!follow) {
    x.res.end();
    return;
  }
  followLogs(x, pod, container, first.lines, { timestamps: opts.timestamps });
}

/** Streams the lines a container adds after `sent`, until it ends, the pod goes or the client leaves. */
function followLogs(x: ConnectRequest, pod: KubeObject, container: string | undefined, sent: LogLine[], opts: LogOptions): void {
  let count = sent.length;
  const firstAt = sent[0]?.at;
  let done = false;
  let watchReady = false;
  const watch: { stop(): void } = x.store.watch(x.type, x.namespace, { resourceVersion: pod.metadata.resourceVersion ?? '', fieldSelector: `metadata.name=${x.name}` }, (ev) => {
    if (ev.type === 'DELETED') return finish();
    if (ev.type !== 'MODIFIED') return;
    const now = podLogs(ev.object as KubeObject, container, false);
    if (now.kind === 'error') return finish();
    // A restarted container is a new run: the stream of the old one ends, as with a real kubelet.
    if (now.lines[0]?.at !== firstAt && firstAt !== undefined) return finish();
    x.res.write(formatLogs(now.lines.slice(count), opts, Date.now()));
    count = now.lines.length;
    if (now.finished) finish();
  });
  watchReady = true;
  if (done) watch.stop();
  function finish(): void {
    if (done) return;
    done = true;
    // The watch may report synchronously, before `watch` is assigned: stop it right after instead.
    if (watchReady) watch.stop();
    x.res.end();
  }
  x.req.on('close', () => watch.stop());
}
