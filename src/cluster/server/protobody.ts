/**
 * Protobuf request bodies (`Content-Type: application/vnd.kubernetes.protobuf`), as kubectl 1.32+
 * sends them for `kubectl create <kind> ...`: the `k8s\0` magic, then a `runtime.Unknown` whose
 * typeMeta names the kind and whose raw bytes are the object. One decoder for every built-in kind:
 * protobufjs reads the bytes against the published Kubernetes schemas (proto/kube-proto.json, made by
 * scripts/cluster-proto.ts), and `toJson` turns the message into the JSON a client would have sent,
 * following the Go types: fields that are Go values rather than pointers (gogoproto `nullable=false`)
 * are always on the wire, so their zero values mean "not set" and are left out as `omitempty` would;
 * pointer fields keep zero (`replicas: 0`). Time, Quantity, IntOrString, RawExtension, FieldsV1,
 * Duration and the slice types (ExtraValue, Verbs) have their own JSON forms, as in apimachinery.
 */
import protobuf from 'protobufjs';
import bundle from './proto/kube-proto.json' with { type: 'json' };

export class UnsupportedProtobufError extends Error {}
export class ProtoDecodeError extends Error {}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const META = '.k8s.io.apimachinery.pkg.apis.meta.v1';
const NULLABLE = '(gogoproto.nullable)';
/** Go slice types that protobuf wraps in a message with one repeated `items` field. */
const SLICE_TYPES = new Set(['.k8s.io.api.authentication.v1.ExtraValue', '.k8s.io.api.authorization.v1.ExtraValue', `${META}.Verbs`]);

/**
 * Fields Go serialises inline (`json:",inline"`): their members sit beside their siblings in JSON.
 * gogoproto does not record this, so here is Kubernetes's short list for the served groups.
 */
export const INLINE_FIELDS = new Set([
  '.k8s.io.api.core.v1.Volume.volumeSource',
  '.k8s.io.api.core.v1.PersistentVolumeSpec.persistentVolumeSource',
  '.k8s.io.api.core.v1.Probe.handler',
  '.k8s.io.api.core.v1.EphemeralContainer.ephemeralContainerCommon',
  '.k8s.io.api.networking.v1.IngressRule.ingressRuleValue',
]);

/** Whether a field is serialised inline; every embedded LocalObjectReference is (`json:",inline"`). */
export function isInline(type: protobuf.Type, field: protobuf.Field): boolean {
  return field.name === 'localObjectReference' || INLINE_FIELDS.has(`${type.fullName}.${field.name}`);
}

let root: protobuf.Root | undefined;

/** The schemas, for other modules that follow the same types (validation of built-in kinds). */
export function kubeSchemaRoot(): protobuf.Root {
  return kubeRoot();
}

function kubeRoot(): protobuf.Root {
  root ??= protobuf.Root.fromJSON(bundle);
  return root;
}

/** The proto package of a group version: `apps/v1` -> `k8s.io.api.apps.v1`, core -> `k8s.io.api.core.v1`. */
export function protoPackage(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  return `k8s.io.api.${group === '' ? 'core' : group.split('.')[0] ?? ''}.${version}`;
}

/** The message type of a built-in kind, or undefined when the schemas have none. */
export function kindType(apiVersion: string, kind: string): protobuf.Type | undefined {
  const found = kubeRoot().lookup(`${protoPackage(apiVersion)}.${kind}`);
  return found instanceof protobuf.Type ? found : undefined;
}

function unknownType(): protobuf.Type {
  return kubeRoot().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
}

/** `k8s\0` + runtime.Unknown{typeMeta{apiVersion,kind}, raw} -> the object as JSON. */
export function decodeKubeProtobuf(body: Uint8Array): Record<string, unknown> {
  if (body.length < 4 || MAGIC.some((b, i) => body[i] !== b)) throw new UnsupportedProtobufError('body does not start with the k8s protobuf magic');
  const envelope = decode(unknownType(), body.subarray(4)) as { typeMeta?: { apiVersion?: string; kind?: string }; raw?: Uint8Array };
  const apiVersion = envelope.typeMeta?.apiVersion ?? '';
  const kind = envelope.typeMeta?.kind ?? '';
  const type = kindType(apiVersion, kind);
  if (!type) throw new UnsupportedProtobufError(`protobuf bodies for ${apiVersion}/${kind} are not supported; send JSON`);
  return { apiVersion, kind, ...messageJson(type, decode(type, envelope.raw ?? new Uint8Array())) };
}

function decode(type: protobuf.Type, bytes: Uint8Array): protobuf.Message {
  try {
    return type.decode(bytes);
  } catch (err) {
    throw new ProtoDecodeError(`${type.name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

type Json = Record<string, unknown>;

const has = (m: object, key: string): boolean => Object.prototype.hasOwnProperty.call(m, key);

/** int64 fields decode to `long` objects. */
interface LongLike {
  toNumber(): number;
}

function isLong(v: unknown): v is LongLike {
  return typeof v === 'object' && v !== null && typeof (v as Partial<LongLike>).toNumber === 'function';
}

function isZero(v: unknown): boolean {
  if (v === '' || v === 0 || v === false) return true;
  if (v instanceof Uint8Array) return v.length === 0;
  return isLong(v) && v.toNumber() === 0;
}

function messageJson(type: protobuf.Type, msg: protobuf.Message): Json {
  const out: Json = {};
  const m = msg as unknown as Json;
  for (const field of type.fieldsArray) {
    if (!has(m, field.name)) continue;
    const raw = m[field.name];
    field.resolve();
    const valueOf = (v: unknown): unknown => convert(field, v);
    // protobufjs gives every message its (empty) lists and maps; Go's nil slices and maps are left out.
    if (field.map) {
      if (Object.keys(raw as Json).length === 0) continue;
      const entries = Object.entries(raw as Json).map(([k, v]) => [k, valueOf(v)] as const);
      out[field.name] = Object.fromEntries(entries);
    } else if (field.repeated) {
      if ((raw as unknown[]).length === 0) continue;
      out[field.name] = (raw as unknown[]).map(valueOf);
    } else {
      // A Go value (not a pointer) is always on the wire: its zero value means "not set".
      if (!field.resolvedType && field.options?.[NULLABLE] === false && isZero(raw)) continue;
      const value = valueOf(raw);
      if (value !== undefined && isInline(type, field) && typeof value === 'object' && value !== null) Object.assign(out, value);
      else if (value !== undefined) out[field.name] = value;
    }
  }
  return out;
}

function convert(field: protobuf.Field, v: unknown): unknown {
  const t = field.resolvedType;
  if (!(t instanceof protobuf.Type)) return scalar(v);
  const own = special(t, v as protobuf.Message);
  return own ? own.json : messageJson(t, v as protobuf.Message);
}

function scalar(v: unknown): unknown {
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  return isLong(v) ? v.toNumber() : v;
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : isLong(v) ? v.toNumber() : 0;
}

/** apimachinery's types with their own JSON form (`json` undefined: left out); undefined for ordinary messages. */
function special(t: protobuf.Type, msg: protobuf.Message): { json: unknown } | undefined {
  const json = specialJson(t.fullName, msg as unknown as Json);
  return json === NOT_SPECIAL ? undefined : { json };
}

const NOT_SPECIAL = Symbol('not special');

function specialJson(fullName: string, m: Json): unknown {
  switch (fullName) {
    case `${META}.Time`:
      return time(num(m.seconds), num(m.nanos), false);
    case `${META}.MicroTime`:
      return time(num(m.seconds), num(m.nanos), true);
    case '.k8s.io.apimachinery.pkg.api.resource.Quantity':
    case '.k8s.io.apimachinery.pkg.api.resource.QuantityValue':
      return typeof m.string === 'string' ? m.string : '0';
    case '.k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      return num(m.type) === 1 ? (m.strVal ?? '') : num(m.intVal);
    case '.k8s.io.apimachinery.pkg.runtime.RawExtension':
      return rawJson(m.raw);
    case `${META}.FieldsV1`:
      return rawJson(m.Raw);
    case `${META}.Duration`:
      return goDuration(num(m.duration));
    default:
      if (SLICE_TYPES.has(fullName)) return Array.isArray(m.items) ? m.items : [];
      return NOT_SPECIAL;
  }
}

/** The zero time (an empty message, or Go's year 1) is JSON null: left out. */
function time(seconds: number, nanos: number, micro: boolean): string | undefined {
  if ((seconds === 0 && nanos === 0) || seconds <= -62135596800) return undefined;
  const iso = new Date(seconds * 1000 + Math.floor(nanos / 1e6)).toISOString();
  if (!micro) return iso.replace(/\.\d{3}Z$/, 'Z');
  return iso.replace(/\.\d{3}Z$/, `.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`);
}

function rawJson(raw: unknown): unknown {
  if (!(raw instanceof Uint8Array) || raw.length === 0) return undefined;
  const text = Buffer.from(raw).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProtoDecodeError('an embedded raw object is not JSON');
  }
}

/** Go's time.Duration.String() for whole units: `1h0m0s`, `90s`, `1.5s`, `0s`. */
export function goDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let rest = Math.abs(ns);
  if (rest < 1e9) return `${sign}${rest >= 1e6 ? `${rest / 1e6}ms` : rest >= 1e3 ? `${rest / 1e3}µs` : `${rest}ns`}`;
  const h = Math.floor(rest / 3.6e12);
  rest -= h * 3.6e12;
  const min = Math.floor(rest / 6e10);
  rest -= min * 6e10;
  const s = `${rest / 1e9}s`;
  if (h > 0) return `${sign}${h}h${min}m${s}`;
  if (min > 0) return `${sign}${min}m${s}`;
  return `${sign}${s}`;
}
