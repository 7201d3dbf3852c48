/** DELETE and deletecollection: preconditions, propagation policy, then garbage collection. */
import type { KubeObject } from '../../kube/object.js';
import { storageKey, type Core } from './core.js';
import { conflict, notFound } from './errors.js';
import { beginDeletion, collectGarbage } from './gc.js';
import type { DeleteOptions, DeleteResult, PropagationPolicy, ResourceType } from './types.js';

/** batch/v1 Jobs orphan their pods by default, as on a real server (kubectl asks for Background). */
function defaultPolicy(type: ResourceType): PropagationPolicy {
  return type.group === 'batch' && type.kind === 'Job' ? 'Orphan' : 'Background';
}

function checkPreconditions(type: ResourceType, obj: KubeObject, opts: DeleteOptions): void {
  const p = opts.preconditions;
  const name = obj.metadata.name ?? '';
  if (p?.uid !== undefined && p.uid !== obj.metadata.uid) {
    throw conflict(type, name, `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${obj.metadata.uid ?? ''}`);
  }
  if (p?.resourceVersion !== undefined && p.resourceVersion !== obj.metadata.resourceVersion) {
    throw conflict(type, name, `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion ?? ''}`);
  }
}

export function deleteObject(core: Core, type: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions): DeleteResult {
  const key = storageKey(type);
  const obj = core.find(key, type.namespaced ? namespace ?? 'default' : '', name);
  if (!obj) throw notFound(type, name);
  checkPreconditions(type, obj, opts);
  const result = beginDeletion(core, key, obj, opts.propagationPolicy ?? defaultPolicy(type), opts.dryRun ?? false);
  if (!opts.dryRun) collectGarbage(core);
  return result;
}

export function deleteCollection(core: Core, type: ResourceType, items: KubeObject[], opts: DeleteOptions): KubeObject[] {
  const out: KubeObject[] = [];
  for (const item of items) {
    const current = core.find(storageKey(type), item.metadata.namespace ?? '', item.metadata.name ?? '');
    if (!current) continue;
    out.push(deleteObject(core, type, item.metadata.namespace, item.metadata.name ?? '', { ...opts, preconditions: {} }).object);
  }
  return out;
}
