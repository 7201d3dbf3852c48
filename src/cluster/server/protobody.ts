/**
 * Decodes the protobuf request bodies kubectl 1.32/1.33 send for `kubectl create namespace|configmap|
 * secret|deployment|job` (`k8s\0` + runtime.Unknown). Field numbers come from k8s.io/api and
 * k8s.io/apimachinery generated.proto; only the kinds and fields those commands produce are mapped,
 * anything else is rejected with 415 by the caller so clients retry with JSON.
 */
import { type WireField, ProtoDecodeError, readFields } from './protowire.js';

type Kind =
  | { t: 'string' | 'int' | 'bool' | 'bytes' | 'strings' | 'time' | 'intstr' | 'quantity' }
  /** Go pointer fields: present means set, even when zero (`replicas: 0`). */
  | { t: 'pint' | 'pbool' | 'pstring' }
  | { t: 'msg' | 'msgs'; of: string }
  | { t: 'map'; value: 'string' | 'bytes' | 'quantity' };

type Schema = Record<number, [string, Kind]>;

const s = { t: 'string' } as const;
const int = { t: 'int' } as const;
const bool = { t: 'bool' } as const;
const pint = { t: 'pint' } as const;
const pbool = { t: 'pbool' } as const;
const strs = { t: 'strings' } as const;
const msg = (of: string): Kind => ({ t: 'msg', of });
const msgs = (of: string): Kind => ({ t: 'msgs', of });
const strMap = { t: 'map', value: 'string' } as const;

const schemas: Record<string, Schema> = {
  ObjectMeta: {
    1: ['name', s], 2: ['generateName', s], 3: ['namespace', s], 5: ['uid', s], 6: ['resourceVersion', s],
    7: ['generation', int], 8: ['creationTimestamp', { t: 'time' }], 11: ['labels', strMap],
    12: ['annotations', strMap], 13: ['ownerReferences', msgs('OwnerReference')], 14: ['finalizers', strs],
  },
  OwnerReference: { 1: ['kind', s], 3: ['name', s], 4: ['uid', s], 5: ['apiVersion', s], 6: ['controller', pbool], 7: ['blockOwnerDeletion', pbool] },
  LabelSelector: { 1: ['matchLabels', strMap], 2: ['matchExpressions', msgs('LabelSelectorRequirement')] },
  LabelSelectorRequirement: { 1: ['key', s], 2: ['operator', s], 3: ['values', strs] },
  Namespace: { 1: ['metadata', msg('ObjectMeta')], 2: ['spec', msg('NamespaceSpec')] },
  NamespaceSpec: { 1: ['finalizers', strs] },
  ConfigMap: { 1: ['metadata', msg('ObjectMeta')], 2: ['data', strMap], 3: ['binaryData', { t: 'map', value: 'bytes' }], 4: ['immutable', pbool] },
  Secret: { 1: ['metadata', msg('ObjectMeta')], 2: ['data', { t: 'map', value: 'bytes' }], 3: ['type', s], 4: ['stringData', strMap], 5: ['immutable', pbool] },
  Deployment: { 1: ['metadata', msg('ObjectMeta')], 2: ['spec', msg('DeploymentSpec')], 3: ['status', msg('Empty')] },
  DeploymentSpec: {
    1: ['replicas', pint], 2: ['selector', msg('LabelSelector')], 3: ['template', msg('PodTemplateSpec')],
    4: ['strategy', msg('DeploymentStrategy')], 5: ['minReadySeconds', int], 6: ['revisionHistoryLimit', pint],
    7: ['paused', bool], 9: ['progressDeadlineSeconds', pint],
  },
  DeploymentStrategy: { 1: ['type', s], 2: ['rollingUpdate', msg('RollingUpdateDeployment')] },
  RollingUpdateDeployment: { 1: ['maxUnavailable', { t: 'intstr' }], 2: ['maxSurge', { t: 'intstr' }] },
  Job: { 1: ['metadata', msg('ObjectMeta')], 2: ['spec', msg('JobSpec')], 3: ['status', msg('Empty')] },
  JobSpec: {
    1: ['parallelism', pint], 2: ['completions', pint], 3: ['activeDeadlineSeconds', pint], 4: ['selector', msg('LabelSelector')],
    5: ['manualSelector', pbool], 6: ['template', msg('PodTemplateSpec')], 7: ['backoffLimit', pint],
    8: ['ttlSecondsAfterFinished', pint], 9: ['completionMode', { t: 'pstring' }], 10: ['suspend', pbool],
  },
  PodTemplateSpec: { 1: ['metadata', msg('ObjectMeta')], 2: ['spec', msg('PodSpec')] },
  PodSpec: {
    2: ['containers', msgs('Container')], 3: ['restartPolicy', s], 4: ['terminationGracePeriodSeconds', pint],
    5: ['activeDeadlineSeconds', pint], 6: ['dnsPolicy', s], 7: ['nodeSelector', strMap], 8: ['serviceAccountName', s],
    10: ['nodeName', s], 20: ['initContainers', msgs('Container')],
  },
  Container: {
    1: ['name', s], 2: ['image', s], 3: ['command', strs], 4: ['args', strs], 5: ['workingDir', s],
    6: ['ports', msgs('ContainerPort')], 7: ['env', msgs('EnvVar')], 8: ['resources', msg('ResourceRequirements')],
    13: ['terminationMessagePath', s], 14: ['imagePullPolicy', s], 20: ['terminationMessagePolicy', s],
  },
  ContainerPort: { 1: ['name', s], 2: ['hostPort', int], 3: ['containerPort', int], 4: ['protocol', s], 5: ['hostIP', s] },
  EnvVar: { 1: ['name', s], 2: ['value', s] },
  ResourceRequirements: { 1: ['limits', { t: 'map', value: 'quantity' }], 2: ['requests', { t: 'map', value: 'quantity' }] },
  Empty: {},
};

/** The kinds whose bodies we can decode, by `apiVersion/kind`. */
const rootSchemas: Record<string, string> = {
  'v1/Namespace': 'Namespace',
  'v1/ConfigMap': 'ConfigMap',
  'v1/Secret': 'Secret',
  'apps/v1/Deployment': 'Deployment',
  'batch/v1/Job': 'Job',
};

export class UnsupportedProtobufError extends Error {}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `k8s\0` + runtime.Unknown{typeMeta{apiVersion,kind}, raw} -> a JSON object. */
export function decodeKubeProtobuf(body: Uint8Array): Record<string, unknown> {
  if (body.length < 4 || MAGIC.some((b, i) => body[i] !== b)) throw new UnsupportedProtobufError('body does not start with the k8s protobuf magic');
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array | undefined;
  for (const f of readFields(body.subarray(4))) {
    if (f.field === 1 && f.wire === 'bytes') {
      for (const t of readFields(f.value)) {
        if (t.wire !== 'bytes') continue;
        if (t.field === 1) apiVersion = utf8.decode(t.value);
        if (t.field === 2) kind = utf8.decode(t.value);
      }
    } else if (f.field === 2 && f.wire === 'bytes') raw = f.value;
  }
  const schema = rootSchemas[`${apiVersion}/${kind}`];
  if (!schema) throw new UnsupportedProtobufError(`protobuf bodies for ${apiVersion}/${kind} are not supported; send JSON`);
  return { apiVersion, kind, ...decodeMessage(raw ?? new Uint8Array(), schema) };
}

function decodeMessage(buf: Uint8Array, schemaName: string): Record<string, unknown> {
  const schema = schemas[schemaName];
  if (!schema) throw new ProtoDecodeError(`no schema ${schemaName}`);
  const out: Record<string, unknown> = {};
  for (const f of readFields(buf)) {
    const spec = schema[f.field];
    if (!spec) continue; // fields kubectl create never sets (status, defaults)
    const [name, kind] = spec;
    const value = decodeValue(f, kind);
    // Non-pointer Go fields are always on the wire; JSON's omitempty leaves their zero values out.
    if (value === undefined || value === '' || value === 0 || value === false) {
      if (kind.t !== 'pint' && kind.t !== 'pbool' && kind.t !== 'pstring' && kind.t !== 'strings') continue;
    }
    if (kind.t === 'strings' || kind.t === 'msgs') out[name] = [...((out[name] as unknown[] | undefined) ?? []), value];
    else if (kind.t === 'map') {
      const [k, v] = value as [string, unknown];
      out[name] = { ...((out[name]) ?? {}), [k]: v };
    } else out[name] = value;
  }
  return out;
}

function bytesOf(f: WireField): Uint8Array {
  if (f.wire !== 'bytes') throw new ProtoDecodeError(`field ${f.field}: expected length-delimited`);
  return f.value;
}

function varintOf(f: WireField): bigint {
  if (f.wire !== 'varint') throw new ProtoDecodeError(`field ${f.field}: expected varint`);
  return f.value;
}

function decodeValue(f: WireField, kind: Kind): unknown {
  switch (kind.t) {
    case 'string':
    case 'pstring':
    case 'strings':
      return utf8.decode(bytesOf(f));
    case 'int':
    case 'pint':
      return Number(BigInt.asIntN(64, varintOf(f)));
    case 'bool':
    case 'pbool':
      return varintOf(f) !== 0n;
    case 'bytes':
      return Buffer.from(bytesOf(f)).toString('base64');
    case 'quantity':
      return quantity(bytesOf(f));
    case 'time':
      return timestamp(bytesOf(f));
    case 'intstr':
      return intOrString(bytesOf(f));
    case 'msg':
    case 'msgs':
      return decodeMessage(bytesOf(f), kind.of);
    case 'map':
      return mapEntry(bytesOf(f), kind.value);
  }
}

function mapEntry(buf: Uint8Array, value: 'string' | 'bytes' | 'quantity'): [string, unknown] {
  let k = '';
  let v: unknown = '';
  for (const f of readFields(buf)) {
    if (f.field === 1) k = utf8.decode(bytesOf(f));
    if (f.field === 2) v = value === 'string' ? utf8.decode(bytesOf(f)) : value === 'bytes' ? Buffer.from(bytesOf(f)).toString('base64') : quantity(bytesOf(f));
  }
  return [k, v];
}

function quantity(buf: Uint8Array): string {
  const f = readFields(buf).find((x) => x.field === 1);
  return f ? utf8.decode(bytesOf(f)) : '0';
}

/** google.protobuf.Timestamp-shaped metav1.Time; an empty message is the zero time (null in JSON). */
function timestamp(buf: Uint8Array): string | undefined {
  let seconds: bigint | undefined;
  for (const f of readFields(buf)) if (f.field === 1) seconds = BigInt.asIntN(64, varintOf(f));
  if (seconds === undefined || seconds <= -62135596800n) return undefined;
  return new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function intOrString(buf: Uint8Array): number | string {
  let type = 0n;
  let intVal = 0;
  let strVal = '';
  for (const f of readFields(buf)) {
    if (f.field === 1) type = varintOf(f);
    if (f.field === 2) intVal = Number(BigInt.asIntN(32, varintOf(f)));
    if (f.field === 3) strVal = utf8.decode(bytesOf(f));
  }
  return type === 1n ? strVal : intVal;
}
