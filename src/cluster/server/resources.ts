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
import { objectView, parseAccept } from './accept.js';
import { decodeObjectBody, decodePatchBody } from './body.js';
import { applyDecision } from './faults.js';
import { boolParam, deleteOptions, listOptions, watchOptions, watchTimeoutMs, writeOptions } from './params.js';
import { sendJson, notFoundPath, readBody, warningHeaders } from './respond.js';
import { type ResourcePath, managerFromUserAgent } from './route.js';
import { parseIncludeObject, partialObjectMetadata, toTable } from './tables.js';
import { serveWatch } from './watchstream.js';

export interface ResourceContext {
  store: Store;
  interceptor: RequestInterceptor | undefined;
  /** Default watch duration when the client gives no timeoutSeconds. */
  watchTimeoutMs: number;
}

interface Resolved {
  type: ResourceType;
  verb: ApiVerb;
  namespace: string | undefined;
  name: string;
  subresource: Subresource | undefined;
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
    else return undefined;
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

export async function handleResource(ctx: ResourceContext, req: IncomingMessage, res: ServerResponse, path: ResourcePath, q: URLSearchParams): Promise<void> {
  const method = req.method ?? 'GET';
  const r = resolve(ctx.store, method, path, q);
  if (!r) {
    notFoundPath(res);
    return;
  }
  const info: RequestInfo = { verb: r.verb, group: r.type.group, resource: r.type.resource };
  if (r.namespace !== undefined) info.namespace = r.namespace;
  if (r.name !== '') info.name = r.name;
  if (r.subresource !== undefined) info.subresource = r.subresource;
  const fault = await applyDecision(ctx.interceptor, info, res);
  if (fault.kind === 'answered') return;
  const { store } = ctx;
  const { type } = r;
  const view = objectView(parseAccept(req.headers.accept));
  const include = parseIncludeObject(q.get('includeObject'));
  const warnings: string[] = [];
  const write = (): UpdateOptions => {
    const opts: UpdateOptions = writeOptions(q, managerFromUserAgent(req.headers['user-agent']), (m) => warnings.push(m));
    if (r.subresource) opts.subresource = r.subresource;
    return opts;
  };
  const answer = (code: number, obj: KubeObject): void => {
    const body = view === 'table' ? toTable(type, [obj], { include }) : view === 'metadata' ? partialObjectMetadata(obj) : obj;
    sendJson(res, code, body, 'application/json', warningHeaders(warnings));
  };

  switch (r.verb) {
    case 'get':
      answer(200, r.subresource === 'scale' ? store.getScale(type, r.namespace, r.name) : store.get(type, r.namespace, r.name));
      return;
    case 'list': {
      const list = store.list(type, r.namespace, listOptions(q));
      const meta = { resourceVersion: list.resourceVersion, ...(list.continue ? { continue: list.continue } : {}), ...(list.remainingItemCount !== undefined ? { remainingItemCount: list.remainingItemCount } : {}) };
      if (view === 'table') sendJson(res, 200, toTable(type, list.items, { include, resourceVersion: list.resourceVersion, ...(list.continue ? { continue: list.continue } : {}) }));
      else if (view === 'metadata') sendJson(res, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: meta, items: list.items.map(partialObjectMetadata) });
      else sendJson(res, 200, { kind: type.listKind, apiVersion: apiVersionOf(type), metadata: meta, items: list.items });
      return;
    }
    case 'watch':
      serveWatch(req, res, {
        store, type, namespace: r.namespace, options: watchOptions(q), timeoutMs: watchTimeoutMs(q, ctx.watchTimeoutMs),
        ...(view === 'table' ? { table: { include } } : {}),
        ...(fault.kind === 'drop-watch' ? { dropAfterMs: fault.afterMs } : {}),
      });
      return;
    case 'create': {
      const body = decodeObjectBody(await readBody(req), req.headers['content-type']);
      answer(201, store.create(type, r.namespace, body, write()));
      return;
    }
    case 'update': {
      const body = decodeObjectBody(await readBody(req), req.headers['content-type']);
      answer(200, store.update(type, r.namespace, r.name, body, write()));
      return;
    }
    case 'patch': {
      const patch = decodePatchBody(await readBody(req), req.headers['content-type'], type.schema === undefined);
      const opts = write();
      if (patch.type === 'apply' && !q.get('fieldManager')) {
        throw new ApiError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
      }
      const result = store.patch(type, r.namespace, r.name, patch.type, patch.body, opts);
      answer(result.created ? 201 : 200, result.object);
      return;
    }
    case 'delete': {
      const raw = await readBody(req);
      const body: unknown = raw.length > 0 ? decodeObjectBody(raw, req.headers['content-type']) : undefined;
      const result = store.delete(type, r.namespace, r.name, deleteOptions(q, body));
      if (result.kind === 'pending') answer(200, result.object);
      else {
        const details = { name: r.name, kind: type.resource, uid: result.object.metadata.uid ?? '', ...(type.group ? { group: type.group } : {}) };
        sendJson(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
      }
      return;
    }
    case 'deletecollection': {
      const raw = await readBody(req);
      const body: unknown = raw.length > 0 ? decodeObjectBody(raw, req.headers['content-type']) : undefined;
      const items = store.deleteCollection(type, r.namespace, listOptions(q), deleteOptions(q, body));
      sendJson(res, 200, { kind: type.listKind, apiVersion: apiVersionOf(type), metadata: { resourceVersion: store.resourceVersion() }, items });
      return;
    }
  }
}
