/**
 * CustomResourceDefinitions: validation of the definition, the resource types it serves, its status
 * (`NamesAccepted` and `Established`, set through a status write right after the CRD is stored, as the
 * real apiextensions controllers do), and removal of its custom resources when it is deleted.
 */
import type { KubeObject } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';
import { CRD_GROUP } from './builtins.js';
import { storageKey, type Core } from './core.js';
import { cause, type Cause } from './errors.js';
import type { PrinterColumn, ResourceType, ScaleSubresource } from './types.js';
import { deepEqual, records } from './util.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (isRecord(v) ? v : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

export function isCrdType(type: Pick<ResourceType, 'group' | 'kind'>): boolean {
  return type.group === CRD_GROUP && type.kind === 'CustomResourceDefinition';
}

export function validateCrd(obj: KubeObject, old: KubeObject | undefined): Cause[] {
  const out: Cause[] = [];
  const spec = asObj(obj.spec);
  const names = asObj(spec.names);
  const group = spec.group;
  if (typeof group !== 'string' || group === '') out.push(cause.required('spec.group'));
  else if (!group.includes('.')) out.push(cause.invalid('spec.group', group, 'should be a domain with at least one dot'));
  if (typeof names.plural !== 'string' || names.plural === '') out.push(cause.required('spec.names.plural'));
  else if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(names.plural)) out.push(cause.invalid('spec.names.plural', names.plural, 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\''));
  if (typeof names.kind !== 'string' || names.kind === '') out.push(cause.required('spec.names.kind'));
  if (typeof names.plural === 'string' && typeof group === 'string' && obj.metadata.name !== `${names.plural}.${group}`) {
    out.push(cause.invalid('metadata.name', obj.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') out.push(cause.unsupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  const versions = records(spec.versions);
  if (versions.length === 0) out.push(cause.required('spec.versions'));
  else if (versions.filter((v) => v.storage === true).length !== 1) {
    out.push(cause.invalid('spec.versions', versions.map((v) => v.name), 'must have exactly one version marked as storage version'));
  }
  versions.forEach((v, i) => {
    if (typeof v.name !== 'string' || v.name === '') out.push(cause.required(`spec.versions[${i}].name`));
    if (typeof v.served !== 'boolean') out.push(cause.required(`spec.versions[${i}].served`));
    if (!isRecord(asObj(v.schema).openAPIV3Schema)) out.push({ ...cause.required(`spec.versions[${i}].schema.openAPIV3Schema`), message: 'Required value: schemas are required' });
  });
  if (old) {
    const o = asObj(old.spec);
    if (o.group !== spec.group) out.push(cause.immutable('spec.group', spec.group));
    if (o.scope !== spec.scope) out.push(cause.immutable('spec.scope', spec.scope));
    if (asObj(o.names).plural !== names.plural) out.push(cause.immutable('spec.names.plural', names.plural));
  }
  return out;
}

function scaleOf(v: unknown): ScaleSubresource | undefined {
  const s = asObj(v);
  if (typeof s.specReplicasPath !== 'string' || typeof s.statusReplicasPath !== 'string') return undefined;
  const scale: ScaleSubresource = { specReplicasPath: s.specReplicasPath, statusReplicasPath: s.statusReplicasPath };
  if (typeof s.labelSelectorPath === 'string') scale.labelSelectorPath = s.labelSelectorPath;
  return scale;
}

/** One ResourceType per served version. */
export function typesFromCrd(crd: KubeObject): ResourceType[] {
  const spec = asObj(crd.spec);
  const names = asObj(spec.names);
  const kind = String(names.kind);
  return records(spec.versions)
    .filter((v) => v.served === true)
    .map((v) => {
      const sub = asObj(v.subresources);
      const type: ResourceType = {
        group: String(spec.group),
        version: String(v.name),
        resource: String(names.plural),
        kind,
        listKind: typeof names.listKind === 'string' ? names.listKind : `${kind}List`,
        singular: typeof names.singular === 'string' ? names.singular : kind.toLowerCase(),
        namespaced: spec.scope === 'Namespaced',
        shortNames: strings(names.shortNames),
        categories: strings(names.categories),
        verbs: VERBS,
        subresources: { status: sub.status !== undefined },
        storage: v.storage === true,
        generation: true,
        schema: asObj(asObj(v.schema).openAPIV3Schema),
      };
      const scale = scaleOf(sub.scale);
      if (scale) type.subresources.scale = scale;
      if (Array.isArray(v.additionalPrinterColumns)) type.printerColumns = records(v.additionalPrinterColumns) as unknown as PrinterColumn[];
      return type;
    });
}

function desiredStatus(core: Core, crd: KubeObject): Obj {
  const spec = asObj(crd.spec);
  const names = asObj(spec.names);
  const kind = String(names.kind);
  const prior = asObj(crd.status);
  const time = core.timestamp();
  const conditions = [
    { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
    { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
  ].map((c) => {
    const before = records(prior.conditions).find((p) => p.type === c.type && p.status === c.status);
    return { ...c, lastTransitionTime: typeof before?.lastTransitionTime === 'string' ? before.lastTransitionTime : time };
  });
  const storage = records(spec.versions).find((v) => v.storage === true);
  const stored = new Set([...strings(prior.storedVersions), ...(storage ? [String(storage.name)] : [])]);
  return {
    acceptedNames: { plural: names.plural, singular: names.singular ?? kind.toLowerCase(), kind, listKind: names.listKind ?? `${kind}List`, ...(names.shortNames ? { shortNames: names.shortNames } : {}), ...(names.categories ? { categories: names.categories } : {}) },
    conditions,
    storedVersions: [...stored],
  };
}

/** Registers a stored CRD's types (also used on restart). */
export function registerCrd(core: Core, crd: KubeObject): void {
  core.registry.setCrdTypes(crd.metadata.name ?? '', crd.metadata.deletionTimestamp === undefined ? typesFromCrd(crd) : []);
}

/** Post-commit hook of every write. */
export function afterWrite(core: Core, type: ResourceType, stored: KubeObject, _old: KubeObject | undefined): void {
  if (!isCrdType(type)) return;
  registerCrd(core, stored);
  if (stored.metadata.deletionTimestamp !== undefined) return;
  const status = desiredStatus(core, stored);
  const current = asObj(stored.status);
  const same = deepEqual(current.conditions, status.conditions) && deepEqual(current.acceptedNames, status.acceptedNames) && deepEqual(current.storedVersions, status.storedVersions);
  if (!same) core.commit(storageKey(type), 'MODIFIED', { ...stored, status: { ...current, ...status } }, stored);
}

/** After a CRD is gone: its custom resources go too (each with a DELETED event) and it stops being served. */
export function onCrdDeleted(core: Core, crd: KubeObject): void {
  const spec = asObj(crd.spec);
  const key = `${String(spec.group)}/${String(asObj(spec.names).plural)}`;
  for (const obj of core.scan(key, undefined)) core.commit(key, 'DELETED', obj);
  core.collections.delete(key);
  core.registry.setCrdTypes(crd.metadata.name ?? '', []);
}
