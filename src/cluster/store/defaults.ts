/**
 * Defaulting the user expects to see after `kubectl get -o yaml`: Service clusterIP and type,
 * Deployment strategy and limits, pod template restart policy, Namespace phase, Secret stringData
 * folded into data, claim and volume phases. Mutates the store's private copy in place.
 */
import type { KubeObject } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';
import type { Core } from './core.js';
import type { ResourceType } from './types.js';
import { child, records } from './util.js';
import { defaultLimitRange } from './admission/limitrange.js';

type Obj = Record<string, unknown>;

function def(obj: Obj, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
}

function podSpec(spec: Obj): void {
  def(spec, 'restartPolicy', 'Always');
  def(spec, 'dnsPolicy', 'ClusterFirst');
  def(spec, 'terminationGracePeriodSeconds', 30);
  def(spec, 'schedulerName', 'default-scheduler');
  def(spec, 'securityContext', {});
  for (const c of [...records(spec.containers), ...records(spec.initContainers)]) {
    const image = typeof c.image === 'string' ? c.image : '';
    const tagged = /:[^/]+$/.test(image) && !image.endsWith(':latest');
    def(c, 'imagePullPolicy', tagged || image.includes('@') ? 'IfNotPresent' : 'Always');
    def(c, 'terminationMessagePath', '/dev/termination-log');
    def(c, 'terminationMessagePolicy', 'File');
    def(c, 'resources', {});
    for (const p of records(c.ports)) def(p, 'protocol', 'TCP');
  }
}

function template(spec: Obj): void {
  const t = spec.template;
  if (isRecord(t) && isRecord(t.spec)) podSpec(t.spec);
}

function allocateClusterIP(core: Core): string {
  const used = new Set<string>();
  for (const b of core.collections.get('/services')?.values() ?? []) {
    for (const s of b.values()) if (isRecord(s.spec) && typeof s.spec.clusterIP === 'string') used.add(s.spec.clusterIP);
  }
  for (let n = 1; n < 65_000; n++) {
    const ip = `10.96.${Math.floor(n / 254)}.${(n % 254) + 1}`;
    if (!used.has(ip)) return ip;
  }
  return '10.96.255.254';
}

function usedNodePorts(core: Core): Set<number> {
  const used = new Set<number>();
  for (const b of core.collections.get('/services')?.values() ?? []) {
    for (const s of b.values()) {
      if (!isRecord(s.spec)) continue;
      for (const p of records(s.spec.ports)) if (typeof p.nodePort === 'number') used.add(p.nodePort);
    }
  }
  return used;
}

function service(core: Core, obj: KubeObject, old: KubeObject | undefined): void {
  const spec = child(obj, 'spec');
  def(spec, 'type', 'ClusterIP');
  def(spec, 'sessionAffinity', 'None');
  const oldSpec = old && isRecord(old.spec) ? old.spec : undefined;
  if (spec.type !== 'ExternalName') {
    if (spec.clusterIP === undefined && oldSpec?.clusterIP !== undefined) spec.clusterIP = oldSpec.clusterIP;
    if (spec.clusterIP === undefined || spec.clusterIP === '') spec.clusterIP = allocateClusterIP(core);
    def(spec, 'clusterIPs', spec.clusterIP === 'None' ? ['None'] : [spec.clusterIP]);
    def(spec, 'ipFamilies', ['IPv4']);
    def(spec, 'ipFamilyPolicy', 'SingleStack');
    def(spec, 'internalTrafficPolicy', 'Cluster');
  }
  for (const p of records(spec.ports)) {
    def(p, 'protocol', 'TCP');
    def(p, 'targetPort', p.port);
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
    const kept = new Map(records(oldSpec?.ports).map((p) => [p.port, p.nodePort]));
    const used = usedNodePorts(core);
    let next = 30000;
    for (const p of records(spec.ports)) {
      if (p.nodePort !== undefined) continue;
      const previous = kept.get(p.port);
      if (typeof previous === 'number') p.nodePort = previous;
      else {
        while (used.has(next)) next++;
        p.nodePort = next;
        used.add(next);
      }
    }
    def(spec, 'externalTrafficPolicy', 'Cluster');
  }
  if (!isRecord(obj.status)) obj.status = { loadBalancer: {} };
}

/**
 * Field by field, as the real defaulting functions do: a strategy left half-empty (server-side apply
 * removed fields another manager had recorded) is completed again rather than left broken.
 */
function rollingStrategy(strategy: Obj, rolling: Obj): void {
  def(strategy, 'type', 'RollingUpdate');
  if (strategy.type !== 'RollingUpdate') return;
  const ru = child(strategy, 'rollingUpdate');
  for (const [k, v] of Object.entries(rolling)) def(ru, k, v);
}

function workload(obj: KubeObject, kind: string): void {
  const spec = child(obj, 'spec');
  if (kind !== 'DaemonSet') def(spec, 'replicas', 1);
  def(spec, 'revisionHistoryLimit', 10);
  template(spec);
  if (kind === 'Deployment') {
    def(spec, 'progressDeadlineSeconds', 600);
    rollingStrategy(child(spec, 'strategy'), { maxSurge: '25%', maxUnavailable: '25%' });
  } else if (kind === 'StatefulSet') {
    def(spec, 'podManagementPolicy', 'OrderedReady');
    rollingStrategy(child(spec, 'updateStrategy'), { partition: 0 });
    def(spec, 'persistentVolumeClaimRetentionPolicy', { whenDeleted: 'Retain', whenScaled: 'Retain' });
  } else if (kind === 'DaemonSet') {
    rollingStrategy(child(spec, 'updateStrategy'), { maxSurge: 0, maxUnavailable: 1 });
  }
}

function job(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  def(spec, 'parallelism', 1);
  def(spec, 'completions', 1);
  def(spec, 'backoffLimit', 6);
  def(spec, 'completionMode', 'NonIndexed');
  def(spec, 'suspend', false);
  const uid = obj.metadata.uid ?? '';
  // The real server generates a selector on the job's uid and labels the template with it.
  if (spec.selector === undefined && spec.manualSelector !== true && uid !== '') {
    spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
    const t = child(spec, 'template');
    const labels = child(child(t, 'metadata'), 'labels');
    def(labels, 'batch.kubernetes.io/controller-uid', uid);
    def(labels, 'controller-uid', uid);
    def(labels, 'batch.kubernetes.io/job-name', obj.metadata.name ?? '');
    def(labels, 'job-name', obj.metadata.name ?? '');
  }
  template(spec);
}

function secret(obj: KubeObject): void {
  def(obj, 'type', 'Opaque');
  if (isRecord(obj.stringData)) {
    const data = child(obj, 'data');
    for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v as string)).toString('base64');
    delete obj.stringData;
  }
}

/** Applies the defaults of a built-in kind; custom resources get none (schema defaults are not modelled). */
export function applyDefaults(core: Core, type: ResourceType, obj: KubeObject, old: KubeObject | undefined): void {
  if (type.schema !== undefined) return;
  const kind = `${type.group}/${type.kind}`;
  switch (kind) {
    case '/Namespace':
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
      def(child(obj, 'spec'), 'finalizers', ['kubernetes']);
      if (!isRecord(obj.status) || obj.status.phase === undefined) obj.status = { phase: 'Active' };
      return;
    case '/Service':
      return service(core, obj, old);
    case '/Secret':
      return secret(obj);
    case '/Pod': {
      podSpec(child(obj, 'spec'));
      def(child(obj, 'spec'), 'serviceAccountName', 'default');
      const status = child(obj, 'status');
      def(status, 'phase', 'Pending');
      def(status, 'qosClass', 'BestEffort');
      return;
    }
    case '/PersistentVolumeClaim': {
      const spec = child(obj, 'spec');
      def(spec, 'volumeMode', 'Filesystem');
      def(child(obj, 'status'), 'phase', 'Pending');
      return;
    }
    case '/PersistentVolume': {
      const spec = child(obj, 'spec');
      def(spec, 'persistentVolumeReclaimPolicy', 'Retain');
      def(spec, 'volumeMode', 'Filesystem');
      def(child(obj, 'status'), 'phase', 'Available');
      return;
    }
    case '/ServiceAccount':
    case '/ConfigMap':
      return;
    case '/LimitRange':
      return defaultLimitRange(obj);
    case 'apps/Deployment':
    case 'apps/StatefulSet':
    case 'apps/DaemonSet':
    case 'apps/ReplicaSet':
      return workload(obj, type.kind);
    case 'batch/Job':
      return job(obj);
    case 'batch/CronJob': {
      const spec = child(obj, 'spec');
      def(spec, 'concurrencyPolicy', 'Allow');
      def(spec, 'suspend', false);
      def(spec, 'successfulJobsHistoryLimit', 3);
      def(spec, 'failedJobsHistoryLimit', 1);
      const jt = spec.jobTemplate;
      if (isRecord(jt) && isRecord(jt.spec)) {
        def(jt.spec, 'backoffLimit', 6);
        template(jt.spec);
      }
      return;
    }
    case 'autoscaling/HorizontalPodAutoscaler': {
      const spec = child(obj, 'spec');
      def(spec, 'minReplicas', 1);
      if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
      return;
    }
    case 'storage.k8s.io/StorageClass':
      def(obj, 'reclaimPolicy', 'Delete');
      def(obj, 'volumeBindingMode', 'Immediate');
      return;
    default:
      return;
  }
}
