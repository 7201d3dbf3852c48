/**
 * One resource request: resolve the type, decide the verb, let the fault interceptor have its say,
 * call the store, and answer as JSON, a Table, PartialObjectMetadata or a watch stream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../../kube/object.js';
import type { ApiVerb, RequestInfo, RequestInterceptor } from '../faults/types.js';
import { ApiError, methodNotAllowed } from '../store/errors.js';
import type { Store } from '../store/store.js';
import type { ResourceType, Subresource, UpdateOptions } from '../store/types.js';
import { apiVersionOf } from '../store/types.js';
import { type ObjectView, objectView, parseAccept } from './accept.js';
import { decodeObjectBody, decodePatchBody } from './body.js';
import { applyDecision } from './faults.js';
import { boolParam, deleteOptions, listOptions, watchOptions, watchTimeoutMs, writeOptions } from './params.js';
import { sendJson, notFoundPath, readBody, warningHeaders } from './respond.js';
import { type ResourcePath, managerFromUserAgent } from './route.js';
import { type IncludeObject, parseIncludeObject, partialObjectMetadata, toTable } from './tables.js';
import { serveWatch } from './watchstream.js';
import { type AccessControl, type UserInfo, authorize } from './auth/index.js';
import { review } from './auth/reviews.js';
import { serveConnect } from './connect.js';

export interface ResourceContext {
  store: Store;
  interceptor: RequestInterceptor | undefined;
  /** Default watch duration when the client gives no timeoutSeconds. */
  watchTimeoutMs: number;
  access: AccessControl;
}

interface Resolved {
  type: ResourceType;
  verb: ApiVerb;
  namespace: string | undefined;
  name: string;
  subresource: Subresource | undefined;
  /** A subresource served outside the store (pods/log, pods/exec, serviceaccounts/token). */
  connect?: string;
}

function verbOf(method: string, path: ResourcePath, q: URLSearchParams): ApiVerb | undefined {
  const named = path.name !== undefined;
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (named) return 'get';
      return path.legacyWatch || boolParam(q, 'watch') ? 'watch' : 'list';
    case 'POST': return named ? undefined : 'create';
    case 'PUT': return named ? 'update' : undefined;
    case 'PATCH': return named ? 'patch' : undefined;
    case 'DELETE': return named ? 'delete' : 'deletecollection';
    default: return undefined;
  }
}

/** Returns undefined when the path names nothing served (404). Throws 405 for unsupported verbs. */
function resolve(store: Store, method: string, path: ResourcePath, q: URLSearchParams): Resolved | undefined {
  const type = store.registry.lookup(path.group, path.version, path.resource);
  if (!type) return undefined;
  if (type.namespaced === false && path.namespace !== undefined) return undefined;
  let subresource: Subresource | undefined;
  if (path.subresource !== undefined) {
    if (path.subresource === 'status' && type.subresources.status) subresource = 'status';
    else if (path.subresource === 'scale' && type.subresources.scale) subresource = 'scale';
    else {
      const connect = type.connect?.find((c) => c.name === path.subresource);
      if (!connect || path.name === undefined || (type.namespaced && path.namespace === undefined)) return undefined;
      return { type, verb: method === 'GET' || method === 'HEAD' ? 'get' : 'create', namespace: path.namespace, name: path.name, subresource: undefined, connect: connect.name };
    }
  }
  const verb = verbOf(method, path, q);
  const what = `${path.resource}${subresource ? `/${subresource}` : ''}`;
  if (verb === undefined || (subresource !== undefined && !['get', 'update', 'patch'].includes(verb))) {
    throw methodNotAllowed(`the server does not allow this method on the requested resource (${method} ${what})`);
  }
  const needsNamespace = type.namespaced && path.namespace === undefined && !['list', 'watch', 'deletecollection'].includes(verb);
  if (needsNamespace) return undefined;
  if (!type.verbs.includes(verb)) throw methodNotAllowed(`the server does not allow this method on the requested resource (${method} ${what})`);
  return { type, verb, namespace: type.namespaced ? path.namespace : undefined, name: path.name ?? '', subresource };
}

export async function handleResource(ctx: ResourceContext, user: UserInfo, req: IncomingMessage, res: ServerResponse, path: ResourcePath, q: URLSearchParams): Promise<void> {
  const method = req.method ?? 'GET';
  const r = resolve(ctx.store, method, path, q);
  if (!r) {
    notFoundPath(res);
    return;
  }
  const sub = r.connect ?? r.subresource;
  authorize(ctx.access, user, {
    kind: 'resource', verb: r.verb, group: r.type.group, resource: r.type.resource,
    ...(sub !== undefined ? { subresource: sub } : {}), ...(r.namespace !== undefined ? { namespace: r.namespace } : {}), ...(r.name !== '' ? { name: r.name } : {}),
  });
  if (r.connect !== undefined) {
    await serveConnect({ store: ctx.store, access: ctx.access, user, type: r.type, namespace: r.namespace, name: r.name, subresource: r.connect, req, res, q });
    return;
  }
  if (r.type.virtual) {
    const body = decodeObjectBody(await readBody(req), req.headers['content-type']);
    const answer = await review(r.type.kind, { ...body, apiVersion: apiVersionOf(r.type) }, { store: ctx.store, user, auth: ctx.access.auth, rbac: ctx.access.rbac, namespace: r.namespace });
    sendJson(res, 201, answer);
    return;
  }
  const info: RequestInfo = { verb: r.verb, group: r.type.group, resource: r.type.resource };
  if (r.namespace !== undefined) info.namespace = r.namespace;
  if (r.name !== '') info.name = r.name;
  if (r.subresource !== undefined) info.subresource = r.subresource;
  const fault = await applyDecision(ctx.interceptor, info, res);
  if (fault.kind === 'answered') return;
  const req2: Request = { ctx, req, res, r, q, view: objectView(parseAccept(req.headers.accept)), include: parseIncludeObject(q.get('includeObject')), warnings: [] };
  if (r.verb === 'get' || r.verb === 'list' || r.verb === 'watch') serveRead(req2, r.verb, fault.kind === 'drop-watch' ? fault.afterMs : undefined);
  else await serveWrite(req2, r.verb);
}

interface Request {
  ctx: ResourceContext;
  req: IncomingMessage;
  res: ServerResponse;
  r: Resolved;
  q: URLSearchParams;
  view: ObjectView;
  include: IncludeObject;
  warnings: string[];
}

/** Answers with the object as the client asked: itself, a one-row Table, or PartialObjectMetadata. */
function answer(x: Request, code: number, obj: KubeObject): void {
  const body = x.view === 'table' ? toTable(x.r.type, [obj], { include: x.include }) : x.view === 'metadata' ? partialObjectMetadata(obj) : obj;
  sendJson(x.res, code, body, 'application/json', warningHeaders(x.warnings));
}

function serveRead(x: Request, verb: 'get' | 'list' | 'watch', dropAfterMs: number | undefined): void {
  const { store } = x.ctx;
  const { type, namespace, name, subresource } = x.r;
  if (verb === 'get') {
    answer(x, 200, subresource === 'scale' ? store.getScale(type, namespace, name) : store.get(type, namespace, name));
    return;
  }
  if (verb === 'watch') {
    serveWatch(x.req, x.res, {
      store, type, namespace, options: watchOptions(x.q), timeoutMs: watchTimeoutMs(x.q, x.ctx.watchTimeoutMs),
      ...(x.view === 'table' ? { table: { include: x.include } } : {}),
      ...(x.view === 'metadata' ? { metadataOnly: true } : {}),
      ...(dropAfterMs !== undefined ? { dropAfterMs } : {}),
    });
    return;
  }
  const list = store.list(type, namespace, listOptions(x.q));
  const more = { ...(list.continue ? { continue: list.continue } : {}), ...(list.remainingItemCount !== undefined ? { remainingItemCount: list.remainingItemCount } : {}) };
  const metadata = { resourceVersion: list.resourceVersion, ...more };
  if (x.view === 'table') sendJson(x.res, 200, toTable(type, list.items, { include: x.include, resourceVersion: list.resourceVersion, ...(list.continue ? { continue: list.continue } : {}) }));
  else if (x.view === 'metadata') sendJson(x.res, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata, items: list.items.map(partialObjectMetadata) });
  else sendJson(x.res, 200, { kind: type.listKind, apiVersion: apiVersionOf(type), metadata, items: list.items });
}

function writeOpts(x: Request): UpdateOptions {
  const opts: UpdateOptions = writeOptions(x.q, managerFromUserAgent(x.req.headers['user-agent']), (m) => x.warnings.push(m));
  if (x.r.subresource) opts.subresource = x.r.subresource;
  return opts;
}

async function optionalBody(x: Request): Promise<unknown> {
  const raw = await readBody(x.req);
  return raw.length > 0 ? decodeObjectBody(raw, x.req.headers['content-type']) : undefined;
}

async function serveWrite(x: Request, verb: 'create' | 'update' | 'patch' | 'delete' | 'deletecollection'): Promise<void> {
  const { store } = x.ctx;
  const { type, namespace, name } = x.r;
  const contentType = x.req.headers['content-type'];
  switch (verb) {
    case 'create':
      answer(x, 201, store.create(type, namespace, decodeObjectBody(await readBody(x.req), contentType), writeOpts(x)));
      return;
    case 'update':
      answer(x, 200, store.update(type, namespace, name, decodeObjectBody(await readBody(x.req), contentType), writeOpts(x)));
      return;
    case 'patch': {
      const patch = decodePatchBody(await readBody(x.req), contentType, type.schema === undefined);
      const opts = writeOpts(x);
      if (patch.type === 'apply' && !x.q.get('fieldManager')) {
        throw new ApiError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
      }
      const result = store.patch(type, namespace, name, patch.type, patch.body, opts);
      answer(x, result.created ? 201 : 200, result.object);
      return;
    }
    case 'delete': {
      const result = store.delete(type, namespace, name, deleteOptions(x.q, await optionalBody(x)));
      if (result.kind === 'pending') {
        answer(x, 200, result.object);
        return;
      }
      // Like most real resources, a completed delete answers with a Success Status naming the object.
      const details = { name, kind: type.resource, uid: result.object.metadata.uid ?? '', ...(type.group ? { group: type.group } : {}) };
      sendJson(x.res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
      return;
    }
    case 'deletecollection': {
      const items = store.deleteCollection(type, namespace, listOptions(x.q), deleteOptions(x.q, await optionalBody(x)));
      sendJson(x.res, 200, { kind: type.listKind, apiVersion: apiVersionOf(type), metadata: { resourceVersion: store.resourceVersion() }, items });
      return;
    }
  }
}
