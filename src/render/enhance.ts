/**
 * Enhancement of rendered objects: standard labels (also on pod templates), annotations for framework
 * version and plan/phase/step, the instance namespace on namespaced kinds, and on pod templates a hash of
 * the ConfigMaps and Secrets they use, so a config change rolls the pods (as KUDO did).
 */
import { hash as digestOf } from 'node:crypto';
import { isRecord, type KubeObject, type ObjectMeta } from '../kube/object.js';
import { isClusterScoped } from './kinds.js';
import {
  ANNOTATION_CONFIG_HASH,
  ANNOTATION_OWNER,
  ANNOTATION_FRAMEWORK_VERSION,
  ANNOTATION_PHASE,
  ANNOTATION_PLAN,
  ANNOTATION_STEP,
} from './labels.js';

export interface EnhanceContext {
  namespace: string;
  frameworkVersion: string;
  plan: string;
  phase: string;
  step: string;
  labels: Record<string, string>;
  /** `<namespace>/<instance>`: the owner annotation. */
  owner: string;
}

/** The pod template of a workload kind, or undefined. CronJob's lives under its job template. */
export function podTemplateOf(obj: KubeObject): Record<string, unknown> | undefined {
  const spec = obj.spec;
  if (!isRecord(spec)) return undefined;
  switch (obj.kind) {
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'ReplicationController':
    case 'Job':
      return isRecord(spec.template) ? spec.template : undefined;
    case 'CronJob': {
      const jt = spec.jobTemplate;
      const jobSpec = isRecord(jt) ? jt.spec : undefined;
      return isRecord(jobSpec) && isRecord(jobSpec.template) ? jobSpec.template : undefined;
    }
    default:
      return undefined;
  }
}

/** The string map at holder[key] (values stringified), replaced by a fresh copy Baton may add to. */
function stringMap(holder: Record<string, unknown>, key: 'labels' | 'annotations'): Record<string, string> {
  const current = holder[key];
  const map: Record<string, string> = {};
  if (isRecord(current)) for (const k in current) map[k] = typeof current[k] === 'string' ? current[k] : String(current[k]);
  holder[key] = map;
  return map;
}

function metadataOf(holder: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(holder.metadata)) holder.metadata = {};
  return holder.metadata as Record<string, unknown>;
}

function addAll(target: Record<string, string>, source: Record<string, string>): void {
  for (const k in source) target[k] = source[k]!;
}

/** Adds labels, annotations and namespace in place. */
export function enhanceObject(obj: KubeObject, ctx: EnhanceContext): void {
  const meta = obj.metadata;
  const labels = stringMap(meta, 'labels');
  addAll(labels, ctx.labels);
  const annotations = stringMap(meta, 'annotations');
  annotations[ANNOTATION_FRAMEWORK_VERSION] = ctx.frameworkVersion;
  annotations[ANNOTATION_PLAN] = ctx.plan;
  annotations[ANNOTATION_PHASE] = ctx.phase;
  annotations[ANNOTATION_STEP] = ctx.step;
  annotations[ANNOTATION_OWNER] = ctx.owner;
  // Readable and stable key order: name, namespace, labels, annotations, then whatever the template set.
  const ordered: ObjectMeta = {};
  if (meta.name !== undefined) ordered.name = meta.name;
  if (!isClusterScoped(obj.kind)) ordered.namespace = ctx.namespace;
  ordered.labels = labels;
  ordered.annotations = annotations;
  for (const k in meta) if (!(k in ordered) && k !== 'namespace') ordered[k] = meta[k];
  obj.metadata = ordered;
  const pod = podTemplateOf(obj);
  if (pod) addAll(stringMap(metadataOf(pod), 'labels'), ctx.labels);
  if (obj.kind === 'CronJob' && isRecord(obj.spec) && isRecord(obj.spec.jobTemplate)) {
    addAll(stringMap(metadataOf(obj.spec.jobTemplate), 'labels'), ctx.labels);
  }
}

function nameOf(v: unknown, key: string): string | undefined {
  return isRecord(v) && typeof v[key] === 'string' ? v[key] : undefined;
}

function addName(set: Set<string>, name: string | undefined): void {
  if (name !== undefined) set.add(name);
}

/** Names of the ConfigMaps and Secrets a pod spec mounts or references (volumes, envFrom, env). */
export function configRefs(podSpec: unknown): { configMaps: Set<string>; secrets: Set<string> } {
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  if (!isRecord(podSpec)) return { configMaps, secrets };
  // Module-level helpers and plain loops: closures and a flattened containers list per call showed in profiles.
  if (Array.isArray(podSpec.volumes)) {
    for (const vol of podSpec.volumes as unknown[]) {
      if (!isRecord(vol)) continue;
      addName(configMaps, nameOf(vol.configMap, 'name'));
      addName(secrets, nameOf(vol.secret, 'secretName'));
      const sources = isRecord(vol.projected) && Array.isArray(vol.projected.sources) ? (vol.projected.sources as unknown[]) : [];
      for (const s of sources) {
        if (!isRecord(s)) continue;
        addName(configMaps, nameOf(s.configMap, 'name'));
        addName(secrets, nameOf(s.secret, 'name'));
      }
    }
  }
  for (const list of [podSpec.containers, podSpec.initContainers]) {
    if (!Array.isArray(list)) continue;
    for (const c of list as unknown[]) {
      if (!isRecord(c)) continue;
      if (Array.isArray(c.envFrom)) {
        for (const from of c.envFrom as unknown[]) {
          if (!isRecord(from)) continue;
          addName(configMaps, nameOf(from.configMapRef, 'name'));
          addName(secrets, nameOf(from.secretRef, 'name'));
        }
      }
      if (!Array.isArray(c.env)) continue;
      for (const env of c.env as unknown[]) {
        const vf = isRecord(env) && isRecord(env.valueFrom) ? env.valueFrom : undefined;
        if (!vf) continue;
        addName(configMaps, nameOf(vf.configMapKeyRef, 'name'));
        addName(secrets, nameOf(vf.secretKeyRef, 'name'));
      }
    }
  }
  return { configMaps, secrets };
}

/**
 * Sorts strings in place in the order of `Array.prototype.sort()` (UTF-16 code units). Key lists here are short, and
 * V8's sort allocated its working state on every call: the config hash sorted ~20 small lists per plan render, and
 * these sorts were a tenth of what rendering allocated in the host.
 */
function sortStrings(xs: string[]): string[] {
  if (xs.length > 32) return xs.sort();
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i]!;
    let j = i - 1;
    for (; j >= 0 && xs[j]! > x; j--) xs[j + 1] = xs[j]!;
    xs[j + 1] = x;
  }
  return xs;
}

/** JSON with sorted keys: the same value always hashes the same. */
export function canonicalJson(value: unknown): string {
  // One string built in place: the map/join version allocated an array and a string per level and was
  // the largest part of enhancement in profiles. Same text as before, so existing hashes do not change.
  return writeCanonical(value, '');
}

/** `out` followed by the canonical JSON of `v` (a module-level function: a closure per call showed in profiles). */
function writeCanonical(v: unknown, out: string): string {
  if (typeof v === 'string') return out + JSON.stringify(v);
  if (Array.isArray(v)) {
    out += '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ',';
      if (i in v) out = writeCanonical(v[i], out);
    }
    return out + ']';
  }
  if (isRecord(v)) {
    const keys = sortStrings(Object.keys(v));
    out += '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      out += `${i > 0 ? ',' : ''}${JSON.stringify(k)}:`;
      out = writeCanonical(v[k], out);
    }
    return out + '}';
  }
  return out + (JSON.stringify(v) ?? 'null');
}

/**
 * Sets `baton.dev/config-hash` on the pod templates of `objects`, hashing the data of the ConfigMaps and
 * Secrets (from the same plan render) each one uses. Pod templates that use none found get no hash.
 */
export function addConfigHashes(objects: readonly KubeObject[]): void {
  // Config objects by key; their canonical text is computed only when a pod template uses them.
  const data = new Map<string, KubeObject>();
  for (const o of objects) {
    if (o.kind !== 'ConfigMap' && o.kind !== 'Secret') continue;
    data.set(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, o);
  }
  if (data.size === 0) return;
  const canonical = new Map<string, string>();
  const contentOf = (key: string): string | undefined => {
    const o = data.get(key);
    if (o === undefined) return undefined;
    let text = canonical.get(key);
    if (text === undefined) {
      text = canonicalJson({ data: o.data ?? null, stringData: o.stringData ?? null, binaryData: o.binaryData ?? null });
      canonical.set(key, text);
    }
    return text;
  };
  // Pod templates that use the same configuration (a Job deleted and applied again in one plan) get the same hash:
  // hashed once. The key lists what is hashed; the content of each key is fixed for this call.
  const hashes = new Map<string, string | undefined>();
  for (const o of objects) {
    const pod = podTemplateOf(o);
    if (!pod) continue;
    const refs = configRefs(pod.spec);
    const ns = o.metadata.namespace ?? '';
    const configMaps = sortStrings([...refs.configMaps]);
    const secrets = sortStrings([...refs.secrets]);
    const memoKey = JSON.stringify([ns, configMaps, secrets]);
    let hash = hashes.get(memoKey);
    if (!hashes.has(memoKey)) {
      // The text hashed is the parts `Kind/name=<canonical JSON>` joined by newlines, hashed in one call: a Hash object
      // per pod template and an update per part (each converting its string) cost more than the joined copy.
      let text: string | undefined;
      for (const [kind, names] of [['ConfigMap', configMaps], ['Secret', secrets]] as const) {
        for (const name of names) {
          const content = contentOf(`${kind}/${ns}/${name}`);
          if (content === undefined) continue;
          text = `${text === undefined ? '' : `${text}\n`}${kind}/${name}=${content}`;
        }
      }
      hash = text === undefined ? undefined : digestOf('sha256', text, 'hex');
      hashes.set(memoKey, hash);
    }
    if (hash === undefined) continue;
    stringMap(metadataOf(pod), 'annotations')[ANNOTATION_CONFIG_HASH] = hash;
  }
}
