/**
 * The Deployment controller's rollout arithmetic, as kube-controller-manager does it (pkg/controller/
 * deployment: rolling.go, recreate.go, sync.go): find or create the ReplicaSet of the current pod
 * template, then one step per pass: scale the new one up within maxSurge, or the old ones down within
 * maxUnavailable (unhealthy replicas first). Pure; the controller executes the step.
 */
import type { KubeObject } from '../../../kube/object.js';
import { nameOf, num, record, scaledValue, spec, stableHash, stableJson, status, str } from '../runtime/meta.js';

export const HASH_LABEL = 'pod-template-hash';
export const REVISION = 'deployment.kubernetes.io/revision';
export const DESIRED = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';

export type RolloutStep =
  | { kind: 'create'; rs: KubeObject }
  | { kind: 'scale'; rs: KubeObject; replicas: number }
  | { kind: 'set-revision'; rs: KubeObject; revision: number }
  | { kind: 'delete'; rs: KubeObject }
  | { kind: 'none' };

export interface Limits {
  desired: number;
  maxSurge: number;
  maxUnavailable: number;
}

export function limitsOf(deploy: KubeObject): Limits {
  const desired = num(spec(deploy).replicas, 1);
  const strategy = record(spec(deploy).strategy);
  if (str(strategy.type) === 'Recreate') return { desired, maxSurge: 0, maxUnavailable: desired };
  const rolling = record(strategy.rollingUpdate);
  const maxSurge = scaledValue(rolling.maxSurge, desired, Math.ceil(desired * 0.25), true);
  let maxUnavailable = scaledValue(rolling.maxUnavailable, desired, Math.floor(desired * 0.25), false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { desired, maxSurge, maxUnavailable: Math.min(maxUnavailable, desired) };
}

/** The pod template without the hash label, the identity of a revision. */
export function templateOf(obj: KubeObject): Record<string, unknown> {
  // Nulls are absent fields (kubectl sends `creationTimestamp: null` in the template on undo). dropNulls
  // builds a new value throughout: the result shares nothing with `obj`.
  const template = dropNulls(record(spec(obj).template)) as Record<string, unknown>;
  const meta = record(template.metadata);
  const labels = { ...(record(meta.labels) as Record<string, string>) };
  delete labels[HASH_LABEL];
  return { ...template, metadata: { ...meta, labels } };
}

export function templateHash(deploy: KubeObject): string {
  const collisions = num(status(deploy).collisionCount, 0);
  return stableHash(collisions > 0 ? [templateOf(deploy), collisions] : templateOf(deploy));
}

export function revisionOf(rs: KubeObject): number {
  return Number(rs.metadata.annotations?.[REVISION] ?? 0) || 0;
}

export const replicasOf = (rs: KubeObject): number => num(spec(rs).replicas, 0);
export const availableOf = (rs: KubeObject): number => num(status(rs).availableReplicas, 0);

/** The ReplicaSet whose template equals the Deployment's (a rollback finds an old one again). */
/**
 * A pod template's comparable form, remembered per template object: a reconcile compares the
 * Deployment's template with every ReplicaSet's, and a workload's objects are reconciled many times
 * (the informers hand out the same objects until a write replaces them, and nothing edits them in place).
 */
const templateKeys = new WeakMap<object, string>();

function templateKey(obj: KubeObject): string {
  const raw = spec(obj).template;
  const memoKey = raw !== null && typeof raw === 'object' ? raw : undefined;
  const known = memoKey ? templateKeys.get(memoKey) : undefined;
  if (known !== undefined) return known;
  // stableJson sorts keys and leaves out null and undefined fields, as templateOf's dropNulls does: only
  // the labels need a copy (without the hash label); no deep copy of the template.
  const template = record(raw);
  const meta = record(template.metadata);
  const labels = { ...(record(meta.labels) as Record<string, string>) };
  delete labels[HASH_LABEL];
  const key = stableJson({ ...template, metadata: { ...meta, labels } });
  if (memoKey) templateKeys.set(memoKey, key);
  return key;
}

export function findNewReplicaSet(deploy: KubeObject, owned: KubeObject[]): KubeObject | undefined {
  const want = templateKey(deploy);
  const byTemplate = owned.filter((rs) => templateKey(rs) === want);
  // Oldest first, as the real controller does when several match.
  return byTemplate.sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''))[0];
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, dropNulls(v)]));
  }
  return value;
}

/** The ReplicaSet object for the current template (not yet created). */
export function newReplicaSetFor(deploy: KubeObject, replicas: number, revision: number, ownerRef: unknown): KubeObject {
  const hash = templateHash(deploy);
  const template = templateOf(deploy);
  const tmeta = record(template.metadata);
  const labels = { ...(record(tmeta.labels) as Record<string, string>), [HASH_LABEL]: hash };
  const selector = record(spec(deploy).selector);
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(deploy.metadata.annotations ?? {})) {
    if (k !== 'kubectl.kubernetes.io/last-applied-configuration' && k !== REVISION) annotations[k] = v;
  }
  const limits = limitsOf(deploy);
  Object.assign(annotations, { [REVISION]: String(revision), [DESIRED]: String(limits.desired), [MAX_REPLICAS]: String(limits.desired + limits.maxSurge) });
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: `${nameOf(deploy)}-${hash}`, namespace: deploy.metadata.namespace ?? 'default', labels, annotations, ownerReferences: [ownerRef as never] },
    spec: {
      replicas,
      minReadySeconds: num(spec(deploy).minReadySeconds, 0),
      selector: { ...selector, matchLabels: { ...(record(selector.matchLabels) as Record<string, string>), [HASH_LABEL]: hash } },
      template: { ...template, metadata: { ...tmeta, labels } },
    },
  };
}

/** The next step of a rollout. `newRS` undefined means the current template has no ReplicaSet yet. */
export function nextStep(deploy: KubeObject, newRS: KubeObject | undefined, old: KubeObject[], ownerRef: unknown): RolloutStep {
  const limits = limitsOf(deploy);
  const maxRevision = Math.max(0, ...[...old, ...(newRS ? [newRS] : [])].map(revisionOf));
  const recreate = str(record(spec(deploy).strategy).type) === 'Recreate';
  const oldActive = old.filter((rs) => replicasOf(rs) > 0);

  if (!newRS) {
    // Recreate starts the new ReplicaSet at zero; a first rollout starts at full size.
    const initial = recreate && oldActive.length > 0 ? 0 : newReplicas(limits, 0, old);
    return { kind: 'create', rs: newReplicaSetFor(deploy, initial, maxRevision + 1, ownerRef) };
  }
  if (revisionOf(newRS) < maxRevision) return { kind: 'set-revision', rs: newRS, revision: maxRevision + 1 };
  // A paused Deployment does not roll out, but still scales (a single ReplicaSet only: no proportional scaling).
  if (spec(deploy).paused === true) {
    const only = old.every((rs) => replicasOf(rs) === 0);
    return only && replicasOf(newRS) !== limits.desired ? { kind: 'scale', rs: newRS, replicas: limits.desired } : { kind: 'none' };
  }
  if (recreate) return recreateStep(limits, newRS, oldActive);

  const wantNew = newReplicas(limits, replicasOf(newRS), old);
  if (wantNew !== replicasOf(newRS)) return { kind: 'scale', rs: newRS, replicas: wantNew };
  return scaleDownOld(limits, newRS, oldActive);
}

function recreateStep(limits: Limits, newRS: KubeObject, oldActive: KubeObject[]): RolloutStep {
  const first = oldActive[0];
  if (first) return { kind: 'scale', rs: first, replicas: 0 };
  return replicasOf(newRS) !== limits.desired ? { kind: 'scale', rs: newRS, replicas: limits.desired } : { kind: 'none' };
}

/** NewRSNewReplicas: grow within maxSurge (or shrink to the desired count). */
function newReplicas(limits: Limits, current: number, old: KubeObject[]): number {
  if (current >= limits.desired) return limits.desired;
  const all = current + old.reduce((n, rs) => n + replicasOf(rs), 0);
  const room = limits.desired + limits.maxSurge - all;
  return current + Math.max(0, Math.min(room, limits.desired - current));
}

/** reconcileOldReplicaSets: first remove unhealthy old replicas, then available ones beyond minAvailable. */
function scaleDownOld(limits: Limits, newRS: KubeObject, oldActive: KubeObject[]): RolloutStep {
  if (oldActive.length === 0) return { kind: 'none' };
  const all = [newRS, ...oldActive];
  const allPods = all.reduce((n, rs) => n + replicasOf(rs), 0);
  const minAvailable = limits.desired - limits.maxUnavailable;
  const newUnavailable = replicasOf(newRS) - availableOf(newRS);
  const maxScaledDown = allPods - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return { kind: 'none' };
  const oldestFirst = [...oldActive].sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
  for (const rs of oldestFirst) {
    const unhealthy = replicasOf(rs) - availableOf(rs);
    if (unhealthy > 0) return { kind: 'scale', rs, replicas: replicasOf(rs) - Math.min(maxScaledDown, unhealthy) };
  }
  const available = all.reduce((n, rs) => n + availableOf(rs), 0);
  const excess = Math.min(available - minAvailable, maxScaledDown);
  if (excess <= 0) return { kind: 'none' };
  const target = oldestFirst[0];
  if (!target) return { kind: 'none' };
  return { kind: 'scale', rs: target, replicas: replicasOf(target) - Math.min(replicasOf(target), excess) };
}

/** Old ReplicaSets scaled to zero beyond revisionHistoryLimit, oldest first. */
export function historyToDelete(deploy: KubeObject, old: KubeObject[]): KubeObject[] {
  const limit = num(spec(deploy).revisionHistoryLimit, 10);
  const idle = old.filter((rs) => replicasOf(rs) === 0 && num(status(rs).replicas, 0) === 0).sort((a, b) => revisionOf(a) - revisionOf(b));
  return idle.slice(0, Math.max(0, idle.length - limit));
}
