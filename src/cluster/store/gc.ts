/**
 * Deletion and garbage collection, run synchronously at the end of each write so results are
 * deterministic: finalizers keep an object (with a deletionTimestamp) until an update removes the
 * last one; `orphan` strips dependents' ownerReferences; `foregroundDeletion` deletes dependents
 * first; Background deletes dependents whose owners are all gone; a Terminating namespace deletes its
 * contents and disappears once empty. Watches see every step as MODIFIED and DELETED events.
 */
import type { KubeObject, ObjectMeta } from '../../kube/object.js';
import type { Core } from './core.js';
import { onCrdDeleted } from './crd.js';
import type { DeleteResult, PropagationPolicy } from './types.js';

const NAMESPACES = '/namespaces';

function keyOf(core: Core, obj: KubeObject): string | undefined {
  return core.byUid.get(obj.metadata.uid ?? '')?.key;
}

/** Starts deleting `obj` (committed) and queues the follow-up work. */
export function beginDeletion(core: Core, key: string, obj: KubeObject, policy: PropagationPolicy, dryRun = false): DeleteResult {
  const meta = obj.metadata;
  if (meta.deletionTimestamp !== undefined) return { kind: 'pending', object: obj };
  const now = core.timestamp();
  if (key === NAMESPACES) {
    const status = { ...(obj.status as Record<string, unknown> | undefined), phase: 'Terminating' };
    const next: KubeObject = { ...obj, metadata: { ...meta, deletionTimestamp: now, deletionGracePeriodSeconds: 0 }, status };
    if (dryRun) return { kind: 'pending', object: next };
    const stored = core.commit(key, 'MODIFIED', next, obj);
    core.gcQueue.push({ kind: 'finalize', uid: meta.uid ?? '' });
    return { kind: 'pending', object: stored };
  }
  const finalizers = [...(meta.finalizers ?? [])];
  if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
  if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
  if (finalizers.length > 0) {
    const next: KubeObject = { ...obj, metadata: { ...meta, finalizers, deletionTimestamp: now, deletionGracePeriodSeconds: 0 } };
    if (dryRun) return { kind: 'pending', object: next };
    const stored = core.commit(key, 'MODIFIED', next, obj);
    core.gcQueue.push({ kind: 'finalize', uid: meta.uid ?? '' });
    return { kind: 'pending', object: stored };
  }
  if (dryRun) return { kind: 'deleted', object: obj };
  const gone = core.commit(key, 'DELETED', obj);
  enqueueAfterDelete(core, gone);
  return { kind: 'deleted', object: gone };
}

/**
 * The garbage collector's absent-owner rule: an object whose owners are all gone is deleted. A
 * controller acting on a cached view can create or re-own a dependent just after its owner went;
 * without this the dependent would live for ever.
 */
export function collectIfOwnersAbsent(core: Core, key: string, obj: KubeObject): void {
  const refs = obj.metadata.ownerReferences ?? [];
  if (refs.length === 0 || obj.metadata.deletionTimestamp !== undefined) return;
  if (refs.some((r) => core.byUid.has(r.uid))) return;
  beginDeletion(core, key, obj, 'Background');
  collectGarbage(core);
}

/** Work a deletion unblocks: the object's dependents, its waiting owners, its terminating namespace. */
export function enqueueAfterDelete(core: Core, gone: KubeObject): void {
  const uid = gone.metadata.uid ?? '';
  if (core.dependents.has(uid)) core.gcQueue.push({ kind: 'ownerGone', uid });
  for (const ref of gone.metadata.ownerReferences ?? []) core.gcQueue.push({ kind: 'finalize', uid: ref.uid });
  const ns = gone.metadata.namespace;
  if (ns !== undefined && ns !== '') {
    const nsObj = core.find(NAMESPACES, '', ns);
    if (nsObj?.metadata.deletionTimestamp !== undefined) core.gcQueue.push({ kind: 'finalize', uid: nsObj.metadata.uid ?? '' });
  }
  if (gone.kind === 'CustomResourceDefinition' && gone.apiVersion.startsWith('apiextensions.k8s.io/')) onCrdDeleted(core, gone);
}

function ownerGone(core: Core, uid: string): void {
  for (const dep of core.dependentsOf(uid)) {
    if (dep.metadata.deletionTimestamp !== undefined) continue;
    const alive = (dep.metadata.ownerReferences ?? []).some((r) => r.uid !== uid && core.byUid.has(r.uid));
    const key = keyOf(core, dep);
    if (!alive && key) beginDeletion(core, key, dep, 'Background');
  }
}

function finalizeNamespace(core: Core, ns: KubeObject): void {
  const name = ns.metadata.name ?? '';
  let remaining = 0;
  for (const [key, c] of core.collections) {
    const bucket = c.get(name);
    if (!bucket || key === NAMESPACES) continue;
    for (const obj of [...bucket.values()]) {
      if (obj.metadata.deletionTimestamp === undefined) beginDeletion(core, key, obj, 'Background');
    }
    remaining += c.get(name)?.size ?? 0;
  }
  if (remaining === 0) {
    const spec = { ...(ns.spec as Record<string, unknown> | undefined), finalizers: [] };
    core.commit(NAMESPACES, 'DELETED', { ...ns, spec });
  }
}

function finalize(core: Core, uid: string): void {
  const obj = core.byUidLookup(uid);
  const key = obj ? keyOf(core, obj) : undefined;
  if (!obj || !key || obj.metadata.deletionTimestamp === undefined) return;
  if (key === NAMESPACES) return finalizeNamespace(core, obj);
  let finalizers = [...(obj.metadata.finalizers ?? [])];
  if (finalizers.includes('orphan')) {
    for (const dep of core.dependentsOf(uid)) {
      const depKey = keyOf(core, dep);
      const refs = (dep.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      const meta: ObjectMeta = { ...dep.metadata, ownerReferences: refs };
      if (refs.length === 0) delete meta.ownerReferences;
      if (depKey) core.commit(depKey, 'MODIFIED', { ...dep, metadata: meta }, dep);
    }
    finalizers = finalizers.filter((f) => f !== 'orphan');
  }
  if (finalizers.includes('foregroundDeletion')) {
    const deps = core.dependentsOf(uid);
    for (const dep of deps) {
      const depKey = keyOf(core, dep);
      if (depKey && dep.metadata.deletionTimestamp === undefined) beginDeletion(core, depKey, dep, 'Foreground');
    }
    if (core.dependentsOf(uid).length === 0) finalizers = finalizers.filter((f) => f !== 'foregroundDeletion');
  }
  const current = core.byUidLookup(uid) ?? obj;
  if (finalizers.length === (current.metadata.finalizers ?? []).length) {
    if (finalizers.length > 0) return;
  }
  const meta: ObjectMeta = { ...current.metadata, finalizers };
  if (finalizers.length === 0) {
    delete meta.finalizers;
    const gone = core.commit(key, 'DELETED', { ...current, metadata: meta });
    enqueueAfterDelete(core, gone);
  } else {
    core.commit(key, 'MODIFIED', { ...current, metadata: meta }, current);
  }
}

/** Runs queued work until none is left; re-entrant calls just add to the queue. */
export function collectGarbage(core: Core, finalizeUids: string[] = []): void {
  for (const uid of finalizeUids) core.gcQueue.push({ kind: 'finalize', uid });
  if (core.gcRunning) return;
  core.gcRunning = true;
  try {
    for (let work = core.gcQueue.shift(); work; work = core.gcQueue.shift()) {
      if (work.kind === 'ownerGone') ownerGone(core, work.uid);
      else finalize(core, work.uid);
    }
  } finally {
    core.gcRunning = false;
  }
}
