/**
 * The write pipeline shared by create, update (PUT), patch and apply: take ownership of the body,
 * check identity and preconditions, keep server-owned metadata, bump generation on spec changes,
 * default, validate, record managed fields, commit (unless dry run), then run the hooks (CRDs) and
 * garbage collection that the write may have unblocked.
 */
import type { KubeObject, ManagedFieldsEntry } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';
import { randomUUID } from 'node:crypto';
import { Core, storageKey } from './core.js';
import { afterWrite } from './crd.js';
import { applyDefaults } from './defaults.js';
import { alreadyExists, badRequest, cause, forbidden, invalid, notFound, staleConflict } from './errors.js';
import { collectGarbage, collectIfOwnersAbsent, enqueueAfterDelete } from './gc.js';
import { recordUpdate } from './ssa/managed.js';
import type { ResourceType, UpdateOptions, WriteOptions } from './types.js';
import { apiVersionOf } from './types.js';
import { clone, deepEqual } from './util.js';
import { validateObject } from './validate/index.js';
import { zeroStatus } from './status.js';
import { admitCreate } from './admission/index.js';

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return s;
}

/** A private deep copy of a request body, checked to be an object of this type. */
export function ownBody(type: ResourceType, body: unknown): KubeObject {
  if (!isRecord(body)) throw badRequest(`the body of the request was not a JSON object (expected ${type.kind})`);
  const obj = clone(body) as KubeObject;
  const av = apiVersionOf(type);
  if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = av;
  if (obj.kind === undefined || obj.kind === '') obj.kind = type.kind;
  if (obj.kind !== type.kind) throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${type.kind})`);
  if (obj.apiVersion !== av) throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${av})`);
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (!isRecord(obj.metadata)) throw badRequest(`${type.kind}.metadata: expected an object`);
  const { apiVersion, kind, metadata, ...rest } = obj;
  return { apiVersion, kind, metadata, ...rest };
}

export function namespaceFor(type: ResourceType, namespace: string | undefined, obj: KubeObject): string {
  if (!type.namespaced) {
    delete obj.metadata.namespace;
    return '';
  }
  const ns = namespace ?? obj.metadata.namespace ?? 'default';
  if (obj.metadata.namespace !== undefined && obj.metadata.namespace !== '' && obj.metadata.namespace !== ns) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  obj.metadata.namespace = ns;
  return ns;
}

function requireNamespace(core: Core, type: ResourceType, ns: string, name: string): void {
  const nsObj = core.find('/namespaces', '', ns);
  if (!nsObj) throw notFound({ group: '', resource: 'namespaces' }, ns);
  if (nsObj.metadata.deletionTimestamp !== undefined) {
    throw forbidden(type, name, `unable to create new content in namespace ${ns} because it is being terminated`);
  }
}

/** Fields a client may not set: the server owns them. */
function stripServerFields(obj: KubeObject): void {
  for (const f of ['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'selfLink']) {
    delete obj.metadata[f];
  }
}

function managerOf(opts: WriteOptions): string {
  return opts.fieldManager !== undefined && opts.fieldManager !== '' ? opts.fieldManager : 'unknown';
}

function finalize(core: Core, type: ResourceType, obj: KubeObject, old: KubeObject | undefined, opts: WriteOptions): KubeObject {
  if (!old && obj.status === undefined && type.schema === undefined) {
    const zero = zeroStatus(`${type.group}/${type.kind}`);
    if (zero) obj.status = zero;
  }
  applyDefaults(core, type, obj, old);
  return validateObject(core, type, obj, old, opts);
}

export function createObject(core: Core, type: ResourceType, namespace: string | undefined, body: unknown, opts: WriteOptions, managed?: ManagedFieldsEntry[]): KubeObject {
  let obj = ownBody(type, body);
  const ns = namespaceFor(type, namespace, obj);
  if (!obj.metadata.name && obj.metadata.generateName) obj.metadata.name = `${obj.metadata.generateName}${randomSuffix()}`;
  const name = obj.metadata.name ?? '';
  if (name === '') throw invalid(type, '', [{ ...cause.required('metadata.name'), message: 'Required value: name or generateName is required' }]);
  if (type.namespaced) requireNamespace(core, type, ns, name);
  if (core.find(storageKey(type), ns, name)) throw alreadyExists(type, name);
  if (obj.metadata.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
  stripServerFields(obj);
  obj.metadata.uid = randomUUID();
  obj.metadata.creationTimestamp = core.timestamp();
  if (type.generation) obj.metadata.generation = 1;
  // Like the real server, status is not settable on create (nodes excepted); defaulting fills it in.
  if (type.subresources.status && type.kind !== 'Node') delete obj.status;
  obj = finalize(core, type, obj, undefined, opts);
  const given = obj.metadata.managedFields;
  obj.metadata.managedFields = managed ?? (Array.isArray(given) && given.length > 0 ? given : recordUpdate(core, type, undefined, obj, managerOf(opts), undefined));
  admitCreate(core, type, obj);
  if (opts.dryRun) return obj;
  const stored = core.commit(storageKey(type), 'ADDED', obj);
  afterWrite(core, type, stored, undefined);
  collectIfOwnersAbsent(core, storageKey(type), stored);
  return stored;
}

export function updateObject(core: Core, type: ResourceType, namespace: string | undefined, name: string, body: unknown, opts: UpdateOptions): KubeObject {
  const ns = type.namespaced ? namespace ?? 'default' : '';
  const old = core.find(storageKey(type), ns, name);
  if (!old) throw notFound(type, name);
  const obj = ownBody(type, body);
  namespaceFor(type, ns, obj);
  if (obj.metadata.name !== undefined && obj.metadata.name !== name) {
    throw badRequest(`the name of the object (${String(obj.metadata.name)}) does not match the name on the URL (${name})`);
  }
  obj.metadata.name = name;
  const rv = obj.metadata.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion) throw staleConflict(type, name);
  return replaceObject(core, type, old, obj, opts);
}

/** What a status write may change: status only (plus managedFields bookkeeping). */
function statusOnly(old: KubeObject, obj: KubeObject): KubeObject {
  const next: KubeObject = { ...clone(old), metadata: clone(old.metadata) };
  if (obj.status === undefined) delete next.status;
  else next.status = obj.status;
  return next;
}

function specChanged(old: KubeObject, next: KubeObject): boolean {
  const keys = new Set([...Object.keys(old), ...Object.keys(next)]);
  for (const k of keys) {
    if (k === 'metadata' || k === 'status' || k === 'apiVersion' || k === 'kind') continue;
    if (!deepEqual(old[k], next[k])) return true;
  }
  return false;
}

/** Metadata the server owns is kept from the stored object whatever the body says. */
function keepServerMetadata(type: ResourceType, old: KubeObject, next: KubeObject): void {
  const m: Record<string, unknown> & KubeObject['metadata'] = next.metadata;
  const o: Record<string, unknown> & KubeObject['metadata'] = old.metadata;
  const keep: string[] = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'namespace', 'name', 'resourceVersion'];
  for (const f of keep) {
    if (o[f] === undefined) delete m[f];
    else m[f] = o[f];
  }
  if (o.deletionTimestamp !== undefined) {
    const before = new Set(o.finalizers ?? []);
    const added = (m.finalizers ?? []).filter((f) => !before.has(f));
    if (added.length > 0) throw invalid(type, o.name ?? '', [cause.forbidden('metadata.finalizers', 'no new finalizers can be added if the object is being deleted')]);
  }
  if (type.generation && specChanged(old, next)) m.generation = (o.generation ?? 0) + 1;
}

/** Stores a replacement; an object being deleted whose last finalizer went is deleted instead. */
function commitReplacement(core: Core, type: ResourceType, old: KubeObject, next: KubeObject): KubeObject {
  const key = storageKey(type);
  const m = next.metadata;
  if (m.deletionTimestamp !== undefined && (m.finalizers ?? []).length === 0) {
    const gone = core.commit(key, 'DELETED', next);
    enqueueAfterDelete(core, gone);
    collectGarbage(core);
    return gone;
  }
  const stored = core.commit(key, 'MODIFIED', next, old);
  afterWrite(core, type, stored, old);
  if (m.deletionTimestamp !== undefined) collectGarbage(core, [stored.metadata.uid ?? '']);
  else collectIfOwnersAbsent(core, key, stored);
  return stored;
}

/** The shared second half of PUT, patch and apply: `obj` is already our own copy. */
export function replaceObject(core: Core, type: ResourceType, old: KubeObject, obj: KubeObject, opts: UpdateOptions, managed?: ManagedFieldsEntry[]): KubeObject {
  const sub = opts.subresource === 'status' ? 'status' : undefined;
  let next = sub ? statusOnly(old, obj) : obj;
  if (!sub && type.subresources.status) {
    if (old.status === undefined) delete next.status;
    else next.status = clone(old.status);
  }
  keepServerMetadata(type, old, next);
  next = finalize(core, type, next, old, opts);
  // A client may replace managedFields outright (kubectl does when migrating to server-side apply).
  const given = next.metadata.managedFields;
  const clientSet = Array.isArray(given) && given.length > 0 && !deepEqual(given, old.metadata.managedFields);
  const entries = managed ?? (clientSet ? given : recordUpdate(core, type, old, next, managerOf(opts), sub));
  if (entries.length > 0) next.metadata.managedFields = entries;
  else delete next.metadata.managedFields;
  if (deepEqual(next, old)) return old;
  if (opts.dryRun) return next;
  return commitReplacement(core, type, old, next);
}

export { patchObject } from './patch/index.js';
