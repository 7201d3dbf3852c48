/**
 * Built-in kinds checked against the published Kubernetes schemas (the same ones protobuf bodies are
 * decoded with, server/proto/kube-proto.json), as the real server's JSON decoder checks them: a value
 * of the wrong JSON type is a 400 decode error with Go's wording (`json: cannot unmarshal string into
 * Go struct field DeploymentSpec.spec.replicas of type int32`), and a field the type does not have is
 * reported for `fieldValidation` (`unknown field "spec.foo"`). Inline fields, Time, Quantity,
 * IntOrString, RawExtension and FieldsV1 are read as their JSON forms.
 *
 * Every write walks its whole object here (it was the largest share of a write's CPU), so what the
 * walk asks of a field is worked out once per schema field (protobufjs computes `fullName` anew on
 * each read), and the path of a value is only spelled out for a message.
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

/** What a value of a field must be, in JSON (one element of it, for a list or a map). */
type Shape =
  | { kind: 'scalar'; type: string }
  | { kind: 'any' }
  | { kind: 'string' }
  | { kind: 'quantity' }
  | { kind: 'intOrString' }
  | { kind: 'strings' }
  | { kind: 'message'; type: protobuf.Type };

interface FieldInfo {
  /** The message the field is declared in (its Go struct, for messages). */
  owner: protobuf.Type;
  field: protobuf.Field;
  shape: Shape;
}

type FieldMap = Map<string, FieldInfo>;
/** The JSON names each message accepts, computed once per message (every write walks them). */
const fieldMaps = new WeakMap<protobuf.Type, FieldMap>();

function shapeOf(field: protobuf.Field): Shape {
  const t = field.resolvedType;
  if (!(t instanceof protobuf.Type)) return { kind: 'scalar', type: field.type };
  const name = t.fullName;
  if (ANY_JSON.has(name)) return { kind: 'any' };
  if (name.endsWith('resource.Quantity')) return { kind: 'quantity' };
  if (STRING_LIKE.has(name)) return { kind: 'string' };
  if (name.endsWith('intstr.IntOrString')) return { kind: 'intOrString' };
  if (SLICES.has(name)) return { kind: 'strings' };
  return { kind: 'message', type: t };
}

function fieldsOf(t: protobuf.Type): FieldMap {
  let out = fieldMaps.get(t);
  if (out) return out;
  out = new Map();
  for (const field of t.fieldsArray) {
    field.resolve();
    if (isInline(t, field) && field.resolvedType instanceof protobuf.Type) {
      for (const [k, v] of fieldsOf(field.resolvedType)) out.set(k, v);
    } else out.set(field.name, { owner: t, field, shape: shapeOf(field) });
  }
  fieldMaps.set(t, out);
  return out;
}

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

function shapeOk(shape: Shape, v: unknown): boolean {
  switch (shape.kind) {
    case 'scalar': return scalarOk(shape.type, v);
    case 'any': return true;
    case 'string': return typeof v === 'string';
    case 'quantity': return typeof v === 'string' || typeof v === 'number';
    case 'intOrString': return typeof v === 'string' || typeof v === 'number';
    case 'strings': return Array.isArray(v) && v.every((s) => typeof s === 'string');
    case 'message': return isRecord(v);
  }
}

/** A value's place in the object, as the decoder names it: `spec.containers[0].ports`, `metadata.labels.app`. */
class Path {
  private readonly parts: (string | number)[] = [];
  push(part: string | number): void { this.parts.push(part); }
  pop(): void { this.parts.pop(); }
  toString(): string {
    let out = '';
    for (const p of this.parts) out = typeof p === 'number' ? `${out}[${p}]` : out === '' ? p : `${out}.${p}`;
    return out;
  }
}

class Walker {
  readonly result: TypedResult = { unknown: [] };
  private readonly path = new Path();

  private fail(info: FieldInfo, v: unknown, asElement: boolean): void {
    const { owner, field } = info;
    this.result.typeError ??= `json: cannot unmarshal ${jsonType(v)} into Go struct field ${owner.name}.${this.path.toString()} of type ${asElement ? goType(field).replace(/^\[\]|^map\[string\]/, '') : goType(field)}`;
  }

  private value(info: FieldInfo, v: unknown): void {
    if (v === null) return;
    const { field } = info;
    if (field.map) {
      if (!isRecord(v)) return this.fail(info, v, false);
      for (const k in v) {
        this.path.push(k);
        this.single(info, v[k], true);
        this.path.pop();
      }
      return;
    }
    if (field.repeated) {
      if (!Array.isArray(v)) return this.fail(info, v, false);
      for (let i = 0; i < v.length; i++) {
        this.path.push(i);
        this.single(info, v[i] as unknown, true);
        this.path.pop();
      }
      return;
    }
    this.single(info, v, false);
  }

  private single(info: FieldInfo, v: unknown, element: boolean): void {
    if (v === null) return;
    if (!shapeOk(info.shape, v)) return this.fail(info, v, element);
    if (info.shape.kind === 'message') this.object(info.shape.type, v as Record<string, unknown>, false);
  }

  object(t: protobuf.Type, v: Record<string, unknown>, top: boolean): void {
    const fields = fieldsOf(t);
    for (const k in v) {
      const known = fields.get(k);
      this.path.push(k);
      if (known) this.value(known, v[k]);
      else if (!(top && (k === 'apiVersion' || k === 'kind'))) this.result.unknown.push(this.path.toString());
      this.path.pop();
    }
  }
}

/** The schema of each apiVersion and kind, looked up once (a lookup walks the schemas' namespaces). */
const types = new Map<string, protobuf.Type | undefined>();

/** Checks an object of a built-in kind; undefined when the schemas do not have the kind. */
export function checkTyped(apiVersion: string, kind: string, obj: Record<string, unknown>): TypedResult | undefined {
  const key = `${apiVersion}/${kind}`;
  let type = types.get(key);
  if (type === undefined && !types.has(key)) {
    type = kindType(apiVersion, kind);
    types.set(key, type);
  }
  if (!type) return undefined;
  const w = new Walker();
  w.object(type, obj, true);
  return w.result;
}
