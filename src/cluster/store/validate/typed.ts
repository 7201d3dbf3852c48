/**
 * Built-in kinds checked against the published Kubernetes schemas (the same ones protobuf bodies are
 * decoded with, server/proto/kube-proto.json), as the real server's JSON decoder checks them: a value
 * of the wrong JSON type is a 400 decode error with Go's wording (`json: cannot unmarshal string into
 * Go struct field DeploymentSpec.spec.replicas of type int32`), and a field the type does not have is
 * reported for `fieldValidation` (`unknown field "spec.foo"`). Inline fields, Time, Quantity,
 * IntOrString, RawExtension and FieldsV1 are read as their JSON forms.
 */
import protobuf from 'protobufjs';
import { isRecord } from '../../../kube/object.js';
import { isInline, kindType } from '../../server/protobody.js';

const META = '.k8s.io.apimachinery.pkg.apis.meta.v1';
const ANY_JSON = new Set(['.k8s.io.apimachinery.pkg.runtime.RawExtension', `${META}.FieldsV1`]);
const STRING_LIKE = new Set([`${META}.Time`, `${META}.MicroTime`, `${META}.Duration`]);
const SLICES = new Set(['.k8s.io.api.authentication.v1.ExtraValue', '.k8s.io.api.authorization.v1.ExtraValue', `${META}.Verbs`]);

export interface TypedResult {
  /** The first wrongly typed value, as the decoder's message. */
  typeError?: string;
  unknown: string[];
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

function goType(field: protobuf.Field): string {
  const t = field.resolvedType;
  const base = t ? `${t.parent?.name ?? 'v1'}.${t.name}` : { double: 'float64', float: 'float32', bytes: '[]uint8' }[field.type] ?? field.type;
  if (field.map) return `map[string]${t ? `${t.parent?.name ?? 'v1'}.${t.name}` : field.type === 'bytes' ? '[]uint8' : field.type}`;
  return field.repeated ? `[]${base}` : base;
}

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

function scalarOk(type: string, v: unknown): boolean {
  switch (type) {
    case 'string':
    case 'bytes':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    default:
      return typeof v === 'number';
  }
}

type FieldMap = Map<string, { owner: protobuf.Type; field: protobuf.Field }>;
/** The JSON names each message accepts, computed once per message (every write walks them). */
const fieldMaps = new WeakMap<protobuf.Type, FieldMap>();

function fieldsOf(t: protobuf.Type): FieldMap {
  let out = fieldMaps.get(t);
  if (out) return out;
  out = new Map();
  for (const field of t.fieldsArray) {
    field.resolve();
    if (isInline(t, field) && field.resolvedType instanceof protobuf.Type) {
      for (const [k, v] of fieldsOf(field.resolvedType)) out.set(k, v);
    } else out.set(field.name, { owner: t, field });
  }
  fieldMaps.set(t, out);
  return out;
}

class Walker {
  readonly result: TypedResult = { unknown: [] };

  private fail(owner: protobuf.Type, path: string, field: protobuf.Field, v: unknown, asElement = false): void {
    this.result.typeError ??= `json: cannot unmarshal ${jsonType(v)} into Go struct field ${owner.name}.${path} of type ${asElement ? goType(field).replace(/^\[\]|^map\[string\]/, '') : goType(field)}`;
  }

  value(owner: protobuf.Type, field: protobuf.Field, path: string, v: unknown): void {
    if (v === null) return;
    if (field.map) {
      if (!isRecord(v)) return this.fail(owner, path, field, v);
      for (const [k, item] of Object.entries(v)) this.single(owner, field, `${path}.${k}`, item, true);
      return;
    }
    if (field.repeated) {
      if (!Array.isArray(v)) return this.fail(owner, path, field, v);
      v.forEach((item, i) => this.single(owner, field, `${path}[${i}]`, item, true));
      return;
    }
    this.single(owner, field, path, v, false);
  }

  private single(owner: protobuf.Type, field: protobuf.Field, path: string, v: unknown, element: boolean): void {
    if (v === null) return;
    const t = field.resolvedType;
    if (!(t instanceof protobuf.Type)) {
      if (!scalarOk(field.type, v)) this.fail(owner, path, field, v, element);
      return;
    }
    if (ANY_JSON.has(t.fullName)) return;
    if (STRING_LIKE.has(t.fullName) || t.fullName.endsWith('resource.Quantity')) {
      if (typeof v !== 'string' && !(t.fullName.endsWith('resource.Quantity') && typeof v === 'number')) this.fail(owner, path, field, v, element);
      return;
    }
    if (t.fullName.endsWith('intstr.IntOrString')) {
      if (typeof v !== 'string' && typeof v !== 'number') this.fail(owner, path, field, v, element);
      return;
    }
    if (SLICES.has(t.fullName)) {
      if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) this.fail(owner, path, field, v, element);
      return;
    }
    if (!isRecord(v)) return this.fail(owner, path, field, v, element);
    this.object(t, v, path);
  }

  object(t: protobuf.Type, v: Record<string, unknown>, path: string): void {
    const fields = fieldsOf(t);
    for (const [k, item] of Object.entries(v)) {
      const known = fields.get(k);
      if (known) this.value(known.owner, known.field, join(path, k), item);
      else if (!(path === '' && (k === 'apiVersion' || k === 'kind'))) this.result.unknown.push(join(path, k));
    }
  }
}

/** Checks an object of a built-in kind; undefined when the schemas do not have the kind. */
export function checkTyped(apiVersion: string, kind: string, obj: Record<string, unknown>): TypedResult | undefined {
  const type = kindType(apiVersion, kind);
  if (!type) return undefined;
  const w = new Walker();
  w.object(type, obj, '');
  return w.result;
}
