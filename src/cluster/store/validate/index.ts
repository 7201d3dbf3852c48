/**
 * Validation of every write: names and labels, the built-in kinds' rules and immutable fields, CRD
 * definitions, and custom resources against their schema (with unknown fields handled per
 * `fieldValidation`). Returns the object to store (custom resources come back pruned).
 */
import type { KubeObject } from '../../../kube/object.js';
import type { Core } from '../core.js';
import { validateCrd } from '../crd.js';
import { badRequest, invalid, type Cause } from '../errors.js';
import type { ResourceType, WriteOptions } from '../types.js';
import { validateBuiltin, validateBuiltinUpdate } from './builtin.js';
import { checkLabels, checkName, nameRuleFor } from './names.js';
import { checkAgainstSchema } from './schema.js';
import { checkTyped } from './typed.js';
import { apiVersionOf } from '../types.js';

function metadataCauses(type: ResourceType, obj: KubeObject): Cause[] {
  const out = checkName('metadata.name', obj.metadata.name ?? '', nameRuleFor(type.group, type.kind));
  out.push(...checkLabels('metadata.labels', obj.metadata.labels));
  const ann = obj.metadata.annotations;
  if (ann !== undefined && (typeof ann !== 'object' || ann === null || Array.isArray(ann))) {
    out.push({ type: 'FieldValueTypeInvalid', message: 'Invalid value: must be an object of strings', field: 'metadata.annotations' });
  }
  return out;
}

function unknownFields(unknown: string[], opts: WriteOptions): void {
  if (unknown.length === 0) return;
  const mode = opts.fieldValidation ?? 'Warn';
  const messages = unknown.map((f) => `unknown field "${f}"`);
  if (mode === 'Strict') throw badRequest(`strict decoding error: ${messages.join(', ')}`);
  if (mode === 'Warn') for (const m of messages) opts.onWarning?.(m);
}

function customResource(type: ResourceType, obj: KubeObject, opts: WriteOptions, causes: Cause[]): KubeObject {
  if (!type.schema) return obj;
  const res = checkAgainstSchema(type.schema, obj);
  causes.push(...res.causes);
  unknownFields(res.unknown, opts);
  return res.value as KubeObject;
}

/** Built-in kinds against the Kubernetes schemas: wrong JSON types are 400, unknown fields per fieldValidation. */
function builtinTypes(type: ResourceType, obj: KubeObject, opts: WriteOptions): void {
  if (type.schema !== undefined || type.virtual) return;
  const res = checkTyped(apiVersionOf(type), type.kind, obj);
  if (!res) return;
  if (res.typeError) throw badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${res.typeError}`);
  unknownFields(res.unknown, opts);
}

export function validateObject(_core: Core, type: ResourceType, obj: KubeObject, old: KubeObject | undefined, opts: WriteOptions): KubeObject {
  const kind = `${type.group}/${type.kind}`;
  builtinTypes(type, obj, opts);
  const causes = metadataCauses(type, obj);
  causes.push(...validateBuiltin(kind, obj));
  if (old) causes.push(...validateBuiltinUpdate(kind, old, obj));
  if (kind === 'apiextensions.k8s.io/CustomResourceDefinition') causes.push(...validateCrd(obj, old));
  const result = customResource(type, obj, opts, causes);
  if (causes.length > 0) throw invalid(type, obj.metadata.name ?? '', causes);
  return result;
}
