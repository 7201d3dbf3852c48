/**
 * Validation of built-in kinds: the checks a user trips over most (selectors that do not match their
 * template, missing containers or images, Service ports, Job restart policies) and the immutable
 * fields of updates. Collects every problem rather than stopping at the first.
 */
import type { KubeObject } from '../../../kube/object.js';
import { isRecord } from '../../../kube/object.js';
import { cause, type Cause } from '../errors.js';
import { labelSelectorMatches } from '../selectors.js';
import { deepEqual, records } from '../util.js';
import { checkLabels, checkName } from './names.js';

type Obj = Record<string, unknown>;

function asObj(v: unknown): Obj {
  return isRecord(v) ? v : {};
}

function podSpec(spec: unknown, at: string, out: Cause[]): void {
  const s = asObj(spec);
  const containers = s.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    out.push(cause.required(`${at}.containers`));
    return;
  }
  const seen = new Set<string>();
  for (const [list, items] of [['containers', containers], ['initContainers', s.initContainers]] as const) {
    records(items).forEach((c, i) => {
      const f = `${at}.${list}[${i}]`;
      if (typeof c.name !== 'string' || c.name === '') out.push(cause.required(`${f}.name`));
      else {
        out.push(...checkName(`${f}.name`, c.name, 'label'));
        if (seen.has(c.name)) out.push(cause.duplicate(`${f}.name`, c.name));
        seen.add(c.name);
      }
      if (typeof c.image !== 'string' || c.image.trim() === '') out.push(cause.required(`${f}.image`));
      records(c.ports).forEach((p, j) => {
        const port = p.containerPort;
        if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
          out.push(port === undefined ? cause.required(`${f}.ports[${j}].containerPort`) : cause.invalid(`${f}.ports[${j}].containerPort`, port, 'must be between 1 and 65535, inclusive'));
        }
      });
    });
  }
  const rp = s.restartPolicy;
  if (rp !== undefined && rp !== 'Always' && rp !== 'OnFailure' && rp !== 'Never') out.push(cause.unsupported(`${at}.restartPolicy`, rp, ['Always', 'Never', 'OnFailure']));
}

function template(spec: Obj, out: Cause[], requireSelector: boolean): void {
  const t = asObj(spec.template);
  const labels = asObj(asObj(t.metadata).labels) as Record<string, string>;
  out.push(...checkLabels('spec.template.metadata.labels', asObj(t.metadata).labels));
  if (requireSelector && spec.selector === undefined) out.push(cause.required('spec.selector'));
  else if (spec.selector !== undefined) {
    const sel = asObj(spec.selector);
    if (Object.keys(asObj(sel.matchLabels)).length === 0 && records(sel.matchExpressions).length === 0) {
      out.push(cause.invalid('spec.selector', spec.selector, 'empty selector is invalid for deployment'));
    } else if (!labelSelectorMatches(sel, labels)) {
      out.push(cause.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
    }
  }
  podSpec(t.spec, 'spec.template.spec', out);
}

function replicas(spec: Obj, out: Cause[]): void {
  const r = spec.replicas;
  if (r !== undefined && (typeof r !== 'number' || !Number.isInteger(r) || r < 0)) out.push(cause.invalid('spec.replicas', r, 'must be greater than or equal to 0'));
}

function service(obj: KubeObject, out: Cause[]): void {
  const spec = asObj(obj.spec);
  const types = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
  if (spec.type !== undefined && (typeof spec.type !== 'string' || !types.includes(spec.type))) out.push(cause.unsupported('spec.type', spec.type, types));
  const headless = spec.clusterIP === 'None';
  const ports = records(spec.ports);
  if (ports.length === 0 && !headless && spec.type !== 'ExternalName') out.push(cause.required('spec.ports'));
  ports.forEach((p, i) => {
    const port = p.port;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
      out.push(port === undefined ? cause.required(`spec.ports[${i}].port`) : cause.invalid(`spec.ports[${i}].port`, port, 'must be between 1 and 65535, inclusive'));
    }
    if (ports.length > 1 && (typeof p.name !== 'string' || p.name === '')) out.push(cause.required(`spec.ports[${i}].name`));
  });
}

function job(spec: Obj, out: Cause[]): void {
  const t = asObj(spec.template);
  podSpec(t.spec, 'spec.template.spec', out);
  const rp = asObj(t.spec).restartPolicy;
  if (rp !== 'OnFailure' && rp !== 'Never') out.push(rp === undefined ? cause.required('spec.template.spec.restartPolicy') : cause.unsupported('spec.template.spec.restartPolicy', rp, ['OnFailure', 'Never']));
}

/** Problems of one object, by kind (`group/Kind`). */
export function validateBuiltin(kind: string, obj: KubeObject): Cause[] {
  const out: Cause[] = [];
  const spec = asObj(obj.spec);
  switch (kind) {
    case 'apps/Deployment':
    case 'apps/ReplicaSet':
    case 'apps/StatefulSet':
    case 'apps/DaemonSet':
      replicas(spec, out);
      template(spec, out, true);
      break;
    case '/Pod':
      podSpec(obj.spec, 'spec', out);
      break;
    case '/Service':
      service(obj, out);
      break;
    case 'batch/Job':
      job(spec, out);
      break;
    case 'batch/CronJob':
      if (typeof spec.schedule !== 'string' || spec.schedule === '') out.push(cause.required('spec.schedule'));
      job(asObj(asObj(spec.jobTemplate).spec), out);
      break;
    case '/ConfigMap':
    case '/Secret':
      for (const field of ['data', 'binaryData']) {
        for (const key of Object.keys(asObj(obj[field]))) {
          if (!/^[-._a-zA-Z0-9]+$/.test(key)) out.push(cause.invalid(`${field}[${key}]`, key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
        }
      }
      break;
    default:
      break;
  }
  return out.map((c) => ({ ...c, field: c.field.replace('spec.template.spec.', kind === 'batch/CronJob' ? 'spec.jobTemplate.spec.template.spec.' : 'spec.template.spec.') }));
}

const STS_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

/** Changes the real server refuses on update. */
export function validateBuiltinUpdate(kind: string, old: KubeObject, next: KubeObject): Cause[] {
  const o = asObj(old.spec);
  const n = asObj(next.spec);
  const out: Cause[] = [];
  const immutable = (field: string, a: unknown, b: unknown, shown: unknown): void => {
    if (!deepEqual(a, b)) out.push(cause.immutable(field, shown));
  };
  switch (kind) {
    case '/Service':
      if (o.clusterIP !== undefined && n.clusterIP !== undefined && o.clusterIP !== n.clusterIP && n.type !== 'ExternalName') {
        out.push(cause.immutable('spec.clusterIPs[0]', n.clusterIP));
      }
      break;
    case 'apps/Deployment':
    case 'apps/ReplicaSet':
    case 'apps/DaemonSet':
      immutable('spec.selector', o.selector, n.selector, n.selector);
      break;
    case 'apps/StatefulSet': {
      const rest = (s: Obj): Obj => Object.fromEntries(Object.entries(s).filter(([k]) => !STS_MUTABLE.includes(k)));
      if (!deepEqual(rest(o), rest(n))) {
        out.push(cause.forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
      }
      break;
    }
    case 'batch/Job':
      immutable('spec.selector', o.selector, n.selector, n.selector);
      immutable('spec.template', o.template, n.template, n.template);
      immutable('spec.completions', o.completions, n.completions, n.completions);
      break;
    case '/ConfigMap':
    case '/Secret':
      if (old.immutable === true) {
        if (next.immutable !== true) out.push(cause.forbidden('immutable', 'field is immutable when `immutable` is set'));
        if (!deepEqual(old.data, next.data)) out.push(cause.forbidden('data', 'field is immutable when `immutable` is set'));
        if (!deepEqual(old.binaryData, next.binaryData)) out.push(cause.forbidden('binaryData', 'field is immutable when `immutable` is set'));
      }
      break;
    case '/PersistentVolumeClaim': {
      // The binder may set volumeName once, and a class may be given to a claim that had none.
      const settable = (k: string, v: unknown): boolean => k === 'resources' || ((k === 'volumeName' || k === 'storageClassName') && (o[k] === undefined || o[k] === '') && v !== undefined);
      const strip = (s: Obj): Obj => Object.fromEntries(Object.entries(s).filter(([k, v]) => !settable(k, v) && !(k === 'resources')));
      const oldSpec = Object.fromEntries(Object.entries(o).filter(([k]) => !settable(k, n[k]) && k !== 'resources'));
      if (!deepEqual(oldSpec, strip(n))) out.push(cause.forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
      break;
    }
    default:
      break;
  }
  return out;
}
