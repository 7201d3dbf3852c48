/**
 * PATCH for every patch type: computes the patched object from the live one, then hands it to the
 * shared update pipeline (so a patch is validated, versioned and recorded like a PUT). Apply may
 * create the object.
 */
import { load, CORE_SCHEMA } from 'js-yaml';
import type { KubeObject } from '../../../kube/object.js';
import { isRecord } from '../../../kube/object.js';
import type { Core } from '../core.js';
import { storageKey } from '../core.js';
import { badRequest, notFound, staleConflict, unsupportedMediaType } from '../errors.js';
import { getScale, updateScale } from '../scale.js';
import { applyConfiguration } from '../ssa/apply.js';
import type { PatchResult, PatchType, ResourceType, UpdateOptions } from '../types.js';
import { createObject, namespaceFor, ownBody, replaceObject } from '../write.js';
import { applyJsonPatch } from './json.js';
import { mergePatch } from './merge.js';
import { strategicMerge } from './strategic.js';

/** Bodies may arrive as parsed JSON or as text (apply accepts YAML). */
function parseBody(body: unknown, patchType: PatchType): unknown {
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) return body;
  const text = body.toString();
  try {
    return patchType === 'apply' ? load(text, { schema: CORE_SCHEMA }) : JSON.parse(text);
  } catch (err) {
    throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function patched(type: ResourceType, live: KubeObject, patchType: Exclude<PatchType, 'apply'>, body: unknown): unknown {
  switch (patchType) {
    case 'json':
      return applyJsonPatch(live, body);
    case 'merge':
      if (!isRecord(body)) throw badRequest('merge patch: the patch must be a JSON object');
      return mergePatch(live, body);
    case 'strategic':
      if (type.schema !== undefined) {
        throw unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
      }
      if (!isRecord(body)) throw badRequest('strategic merge patch: the patch must be a JSON object');
      return strategicMerge(live, body);
  }
}

function applyPatch(core: Core, type: ResourceType, ns: string, name: string, live: KubeObject | undefined, body: unknown, opts: UpdateOptions): PatchResult {
  const manager = opts.fieldManager;
  if (manager === undefined || manager === '') throw badRequest('PATCH requests with an apply patch type require the fieldManager parameter');
  const applied = ownBody(type, body);
  if (applied.metadata.name !== undefined && applied.metadata.name !== name) {
    throw badRequest(`the name of the object (${String(applied.metadata.name)}) does not match the name on the URL (${name})`);
  }
  applied.metadata.name = name;
  namespaceFor(type, type.namespaced ? ns : undefined, applied);
  if (applied.metadata.managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
  const sub = opts.subresource === 'status' ? 'status' : undefined;
  if (!live) {
    if (sub) throw notFound(type, name);
    const { managedFields } = applyConfiguration(core, type, undefined, applied, manager, opts.force ?? false, undefined);
    return { object: createObject(core, type, ns, applied, opts, managedFields), created: true };
  }
  const rv = applied.metadata.resourceVersion;
  if (rv !== undefined && rv !== live.metadata.resourceVersion) throw staleConflict(type, name);
  const { object, managedFields } = applyConfiguration(core, type, core.present(live, type), applied, manager, opts.force ?? false, sub);
  return { object: replaceObject(core, type, live, object, opts, managedFields), created: false };
}

export function patchObject(core: Core, type: ResourceType, namespace: string | undefined, name: string, patchType: PatchType, rawBody: unknown, opts: UpdateOptions): PatchResult {
  const body = parseBody(rawBody, patchType);
  const ns = type.namespaced ? namespace ?? 'default' : '';
  if (opts.subresource === 'scale') {
    if (patchType === 'apply') throw badRequest('apply is not supported on the scale subresource');
    const scale = getScale(core, type, ns, name);
    return { object: updateScale(core, type, ns, name, patched(type, scale, patchType, body), opts), created: false };
  }
  const live = core.find(storageKey(type), ns, name);
  if (patchType === 'apply') return applyPatch(core, type, ns, name, live, body, opts);
  if (!live) throw notFound(type, name);
  const obj = ownBody(type, patched(type, core.present(live, type), patchType, body));
  if (obj.metadata.name !== name) throw badRequest(`metadata.name: Invalid value: "${String(obj.metadata.name)}": field is immutable`);
  const rv = obj.metadata.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== live.metadata.resourceVersion) throw staleConflict(type, name);
  return { object: replaceObject(core, type, live, obj, opts), created: false };
}
