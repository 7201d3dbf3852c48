/**
 * One drift sweep over many instances. The API is read with lists only (checkpoints by their label,
 * then each kind by Baton's `managed-by` label, see live.ts); rendered objects are compared with the
 * live ones locally (compare.ts); only the few objects that look different are confirmed, one
 * server-side dry-run apply each (or a get, for an object the label list did not return). So a sweep
 * makes a handful of requests per kind plus one per suspect object, never one per object.
 *
 * Drift is measured only against a desired state that is fully applied: while a plan runs or has
 * failed, the plan and its retries are what move the cluster (an instance is then `notChecked`).
 * Health is evaluated for every instance. Nothing here writes to the cluster (dry-runs persist nothing).
 */
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import { groupOf, refLabel, type KubeObject, type ObjectRef } from '../kube/object.js';
import { errorMessage } from '../errors.js';
import { CHECKPOINT_LABEL, checkpointRef, instanceOfCheckpoint, parseCheckpointConfigMap } from '../plans/checkpoint-configmap.js';
import { targetApplied, type Checkpoint, type InstanceKey } from '../plans/checkpoint.js';
import { isUnfinished } from '../plans/concurrency.js';
import { FIELD_MANAGER } from '../plans/batch.js';
import { conflictsOf } from '../plans/errors.js';
import type { EngineHooks } from '../plans/hooks.js';
import { identityKey, samePruneFamily } from '../plans/inventory.js';
import { applyPolicyOf } from '../plans/ownership.js';
import { forEachLimited } from '../plans/pool.js';
import { changedKeys, type StoredValues } from '../plans/values.js';
import { labelValue } from '../render/labels.js';
import type { ReadinessRule } from '../render/types.js';
import { applyWouldChange, renderedDifferences } from './compare.js';
import { healthOf, RUN_ONCE_KINDS, UNKNOWN_HEALTH, type HealthInput } from './health.js';
import { listKind, liveKey, MANAGED_SELECTOR, type KindListing } from './live.js';
import type { DesiredObject, DriftedObject, InstanceDrift, NotChecked, SelfHealPolicy, SweepReport, SweepStats } from './types.js';

/** The objects an instance's lifecycle plans render at its current desired state. */
export interface DesiredSet {
  /** By identity (`group/kind/namespace/name`, plans/inventory.ts identityKey): the render of the plan that last applied each. */
  objects: ReadonlyMap<string, DesiredObject[]>;
  rules: ReadinessRule[];
  /** The desired state these renders are for; drift is measured only when it is the applied one. */
  state: { frameworkVersion: string; frameworkHash: string; values: StoredValues };
}

export interface SweepInstance {
  key: InstanceKey;
  policy: SelfHealPolicy;
  /** Renders (cached by the caller); a rejection becomes a located error of this instance. */
  desired(): Promise<DesiredSet>;
}

export interface SweepOptions {
  client: KubeClient;
  hooks: Pick<EngineHooks, 'gate'>;
  instances: readonly SweepInstance[];
  now?: () => Date;
  /** Confirming requests in flight (default 16). */
  concurrency?: number;
  /** Instances rendered at once (default SWEEP_RENDERS). */
  renderConcurrency?: number;
  /** The agent stopping: no further render or list starts, and the report names no instance. */
  signal?: AbortSignal;
}

interface Expected {
  ref: ObjectRef;
  desired: DesiredObject | undefined;
  runOnce: boolean;
}

interface Plan {
  instance: SweepInstance;
  checkpoint?: Checkpoint;
  expected: Expected[];
  /** Drift is compared only for these instances (health is evaluated for all). */
  compare: boolean;
  notChecked?: NotChecked;
  errors: string[];
  rules: ReadinessRule[];
  checkpointMissing?: boolean;
}

/** Instances a sweep renders at once: enough to keep the template sandbox busy, not a slice's worth. */
export const SWEEP_RENDERS = 8;

export async function sweep(options: SweepOptions): Promise<SweepReport> {
  const now = options.now?.() ?? new Date();
  const stats: SweepStats = { requests: 0, lists: 0, dryRuns: 0, gets: 0, objects: 0, candidates: 0, listed: 0, kept: 0, sweeps: 1 };
  const checkpoints = await loadCheckpoints(options.client, options.instances, stats);
  // A few renders at a time: a slice of 500 rendered all at once held every render in flight (the
  // sandbox's answers, parsed instance files) at the same moment, a burst of garbage at the end of a run.
  const plans: Plan[] = new Array<Plan>(options.instances.length);
  const indexed = options.instances.map((instance, index) => ({ instance, index }));
  await forEachLimited(indexed, options.renderConcurrency ?? SWEEP_RENDERS, async ({ instance, index }) => {
    if (options.signal?.aborted === true) return;
    plans[index] = await planFor(instance, checkpoints.get(keyOf(instance.key)));
  });
  // Stopped: what was found so far is not a full check of anything (the next look sweeps again).
  if (options.signal?.aborted === true) return { at: now.toISOString(), instances: [], stats };

  const listings = await listAll(options.client, plans, stats);
  const results = new Map<Plan, { drifted: DriftedObject[]; health: HealthInput[]; errors: string[] }>();
  const suspects: { plan: Plan; e: Expected; live: KubeObject | undefined; differences: string[] }[] = [];
  for (const plan of plans) {
    const r = { drifted: [] as DriftedObject[], health: [] as HealthInput[], errors: [...plan.errors] };
    results.set(plan, r);
    for (const e of plan.expected) {
      stats.objects++;
      const listing = listings.get(kindKey(e.ref));
      const unread = listing === undefined ? 'not listed' : unreadable(listing, e.ref);
      if (unread !== undefined) {
        r.errors.push(`${refLabel(e.ref)} (${e.ref.apiVersion}): ${unread}`);
        r.health.push({ ref: e.ref, live: 'unknown', runOnce: e.runOnce });
        continue;
      }
      const live = listing?.objects.get(liveKey(e.ref.namespace, e.ref.name));
      r.health.push({ ref: e.ref, live, runOnce: e.runOnce });
      if (!plan.compare || e.desired === undefined || e.runOnce) continue;
      const policy = applyPolicyOf(e.desired.object, e.desired.force ? true : e.desired.noForce === true ? false : undefined);
      if (policy.drift === 'ignore') continue;
      if (live === undefined) {
        suspects.push({ plan, e, live, differences: [] });
        continue;
      }
      if (live.metadata.deletionTimestamp !== undefined) {
        r.drifted.push({ ref: e.ref, object: refLabel(e.ref), reason: { kind: 'deleting', since: live.metadata.deletionTimestamp }, action: 'repair' });
        continue;
      }
      if (policy.create === 'if-absent') continue;
      const differences = renderedDifferences(e.desired.object, live);
      if (differences.length > 0) suspects.push({ plan, e, live, differences });
    }
  }

  stats.candidates = suspects.length;
  await forEachLimited(suspects, options.concurrency ?? 16, async (s) => {
    const r = results.get(s.plan);
    if (r === undefined || s.e.desired === undefined) return;
    try {
      const found = await confirm(options.client, s.e.desired, s.live, stats);
      if (found.kind === 'drifted') r.drifted.push(found.object);
      if (found.kind === 'present') {
        // The label list missed it (its labels were edited): it exists after all.
        const index = r.health.findIndex((h) => h.ref === s.e.ref);
        if (index >= 0) r.health[index] = { ref: s.e.ref, live: found.live, runOnce: s.e.runOnce };
        if (found.drifted) r.drifted.push(found.drifted);
      }
      if (found.kind === 'foreign') r.errors.push(found.message);
    } catch (err) {
      r.errors.push(`${refLabel(s.e.ref)}: could not be checked: ${errorMessage(err)}`);
    }
  });

  const instances: InstanceDrift[] = plans.map((plan) => {
    const r = results.get(plan) ?? { drifted: [], health: [], errors: [] };
    const health = plan.checkpointMissing ? { status: 'Missing' as const, objects: [], checked: 0 } : plan.checkpoint === undefined ? UNKNOWN_HEALTH : healthOf(r.health, options.hooks, plan.rules, now);
    return {
      instance: { ...plan.instance.key },
      checkedAt: now.toISOString(),
      ...(plan.notChecked ? { notChecked: plan.notChecked } : {}),
      objects: r.drifted.sort((a, b) => a.object.localeCompare(b.object)),
      errors: r.errors,
      health,
      ...(plan.checkpointMissing ? { checkpointMissing: true } : {}),
    };
  });
  const listed = new Map<string, Checkpoint>();
  for (const plan of plans) if (plan.checkpoint !== undefined) listed.set(keyOf(plan.instance.key), plan.checkpoint);
  return { at: now.toISOString(), instances, stats, checkpoints: listed };
}

const keyOf = (k: InstanceKey): string => `${k.namespace}/${k.name}`;
const kindKey = (ref: ObjectRef): string => `${ref.apiVersion}/${ref.kind}`;

type Loaded = { checkpoint: Checkpoint } | { error: string } | { failed: string };

/** Every checkpoint of the swept instances, by lists of the checkpoint label. */
async function loadCheckpoints(client: KubeClient, instances: readonly SweepInstance[], stats: SweepStats): Promise<Map<string, Loaded>> {
  const namespaces = new Set(instances.map((i) => i.key.namespace));
  // Only the swept instances' checkpoints are listed (by their instance label) and kept (and parsed), not every instance's in the cluster.
  const wanted = new Set(instances.map((i) => { const ref = checkpointRef(i.key); return liveKey(ref.namespace, ref.name); }));
  const listing = await listKind(client, { apiVersion: 'v1', kind: 'ConfigMap', namespaces, ...narrowedTo(instances.map((i) => i.key)) }, `${CHECKPOINT_LABEL}=true`, stats, wanted);
  const out = new Map<string, Loaded>();
  for (const cm of listing.objects.values()) {
    const key = instanceOfCheckpoint(cm);
    if (key === undefined) continue;
    try {
      out.set(keyOf(key), { checkpoint: parseCheckpointConfigMap(cm, key).checkpoint });
    } catch (err) {
      out.set(keyOf(key), { error: errorMessage(err) });
    }
  }
  for (const i of instances) {
    if (out.has(keyOf(i.key))) continue;
    const failed = listing.failed.get(i.key.namespace) ?? listing.failed.get('*') ?? listing.gone;
    if (failed !== undefined) out.set(keyOf(i.key), { failed: `checkpoints could not be listed: ${failed}` });
  }
  return out;
}

/** What to look at for one instance, and whether to compare drift or only health. */
async function planFor(instance: SweepInstance, loaded: Loaded | undefined): Promise<Plan> {
  const base = { instance, expected: [] as Expected[], compare: false, errors: [] as string[], rules: [] as ReadinessRule[] };
  if (loaded === undefined) {
    const ref = checkpointRef(instance.key);
    return { ...base, checkpointMissing: true, errors: [`ConfigMap ${ref.namespace}/${ref.name}: the checkpoint is gone (was namespace ${instance.key.namespace} deleted?); only a new plan run can restore the instance`] };
  }
  if ('failed' in loaded) return { ...base, errors: [loaded.failed] };
  if ('error' in loaded) return { ...base, errors: [loaded.error] };
  const cp = loaded.checkpoint;
  let desired: DesiredSet | undefined;
  let renderError: string | undefined;
  try {
    desired = await instance.desired();
  } catch (err) {
    renderError = `the desired state could not be rendered: ${errorMessage(err)}`;
  }
  const expected = lifecycleEntries(cp).map((ref): Expected => {
    const candidates = desired?.objects.get(identityKey(ref));
    const entryPlan = cp.inventory.find((e) => identityKey(e) === identityKey(ref))?.plan;
    return { ref, desired: candidates?.find((c) => c.plan === entryPlan) ?? candidates?.[0], runOnce: RUN_ONCE_KINDS.has(`${groupOf(ref.apiVersion)}/${ref.kind}`) };
  });
  const plan: Plan = { ...base, checkpoint: cp, expected, rules: desired?.rules ?? [], ...(renderError ? { errors: [renderError] } : {}) };
  const notChecked = whyNotCompared(instance.policy, cp, desired, renderError);
  return notChecked ? { ...plan, notChecked } : { ...plan, compare: true };
}

function whyNotCompared(policy: SelfHealPolicy, cp: Checkpoint, desired: DesiredSet | undefined, renderError: string | undefined): NotChecked | undefined {
  if (policy === 'ignore') return { kind: 'ignored', message: 'self-heal policy ignore: drift is not checked' };
  if (isUnfinished(cp.active)) return { kind: 'busy', message: `plan ${cp.active.plan} is running` };
  if (!targetApplied(cp)) {
    const failure = cp.target?.failure;
    return { kind: 'not-applied', message: failure ? `the desired state is not applied (${cp.target?.plan} failed: ${failure.code})` : 'the desired state is not applied yet' };
  }
  if (desired === undefined) return { kind: 'not-applied', message: renderError ?? 'no desired state' };
  const applied = cp.applied;
  const same = applied !== undefined && applied.frameworkVersion === desired.state.frameworkVersion && applied.frameworkHash === desired.state.frameworkHash && changedKeys(applied.values, desired.state.values).length === 0;
  return same ? undefined : { kind: 'not-applied', message: 'the desired state in Git is newer than the applied one (a plan will run)' };
}

/** Inventory entries of the lifecycle plans (deploy, update, upgrade): what the instance's desired state consists of. */
function lifecycleEntries(cp: Checkpoint): ObjectRef[] {
  return cp.inventory
    .filter((e) => samePruneFamily(e.plan, 'deploy'))
    .map((e) => ({ apiVersion: e.apiVersion, kind: e.kind, name: e.name, ...(e.namespace !== undefined ? { namespace: e.namespace } : {}) }));
}

/**
 * Managed objects, not checkpoints: checkpoint ConfigMaps carry Baton's `managed-by` label too, so a
 * ConfigMap list returned every instance's checkpoint (the largest ConfigMaps) a second time, only for
 * the sweep to drop them (loadCheckpoints reads them by their own label).
 */
const MANAGED_OBJECTS = `${MANAGED_SELECTOR},!${CHECKPOINT_LABEL}`;

/**
 * The lists name the swept instances by their instance label (live.ts), unless one of them has a name
 * that is not a label value as it stands (its objects' label is a cleaned form, its checkpoint's the
 * name): then the sweep lists by Baton's label alone, as before.
 */
function narrowedTo(keys: readonly InstanceKey[]): { instances?: ReadonlySet<string> } {
  if (keys.some((k) => labelValue(k.name) !== k.name)) return {};
  return { instances: new Set(keys.map((k) => k.name)) };
}

async function listAll(client: KubeClient, plans: readonly Plan[], stats: SweepStats): Promise<Map<string, KindListing>> {
  const narrowed = narrowedTo(plans.map((p) => p.instance.key));
  const kinds = new Map<string, { apiVersion: string; kind: string; namespaces: Set<string>; wanted: Set<string> }>();
  for (const p of plans) {
    for (const e of p.expected) {
      const k = kinds.get(kindKey(e.ref)) ?? { apiVersion: e.ref.apiVersion, kind: e.ref.kind, namespaces: new Set<string>(), wanted: new Set<string>() };
      k.namespaces.add(e.ref.namespace ?? '');
      // Only the swept instances' objects are kept from the (cluster-wide) lists: see live.ts.
      k.wanted.add(liveKey(e.ref.namespace, e.ref.name));
      kinds.set(kindKey(e.ref), k);
    }
  }
  const out = new Map<string, KindListing>();
  await forEachLimited([...kinds.entries()], 8, async ([key, q]) => {
    out.set(key, await listKind(client, { ...q, ...narrowed }, MANAGED_OBJECTS, stats, q.wanted));
  });
  return out;
}

function unreadable(listing: KindListing, ref: ObjectRef): string | undefined {
  if (listing.gone !== undefined) return listing.gone;
  const failed = listing.failed.get(ref.namespace ?? '*') ?? listing.failed.get('*');
  return failed === undefined ? undefined : `could not be listed: ${failed}`;
}

type Confirmed =
  | { kind: 'drifted'; object: DriftedObject }
  | { kind: 'same' }
  | { kind: 'present'; live: KubeObject; drifted?: DriftedObject }
  | { kind: 'foreign'; message: string };

/**
 * The exact check of one suspect. A missing one is looked up (a get: its labels may have been edited
 * so the list missed it); a different one is dry-run applied without force: a conflict names the
 * fields another manager owns now, and an answer that differs from the live object names what an
 * apply would change. Identical answers mean the server only normalised a value: no drift.
 */
async function confirm(client: KubeClient, desired: DesiredObject, live: KubeObject | undefined, stats: SweepStats): Promise<Confirmed> {
  const ref: ObjectRef = { apiVersion: desired.object.apiVersion, kind: desired.object.kind, name: desired.object.metadata.name ?? '', ...(desired.object.metadata.namespace !== undefined ? { namespace: desired.object.metadata.namespace } : {}) };
  const object = refLabel(ref);
  const action = applyPolicyOf(desired.object, desired.force ? true : desired.noForce === true ? false : undefined).conflicts === 'force' ? 'repair' : 'report';
  if (live === undefined) {
    stats.requests++;
    stats.gets++;
    const found = await client.get(ref);
    if (found === undefined) return { kind: 'drifted', object: { ref, object, reason: { kind: 'missing' }, action: 'repair' } };
    const owner = found.metadata.labels?.['app.kubernetes.io/instance'];
    const mine = desired.object.metadata.labels?.['app.kubernetes.io/instance'];
    if (owner !== undefined && mine !== undefined && owner !== mine) {
      return { kind: 'foreign', message: `${object}: now labelled as owned by instance ${owner}; Baton leaves it alone` };
    }
    const changed = await dryRun(client, desired.object, found, stats);
    return { kind: 'present', live: found, ...(changed ? { drifted: { ref, object, reason: changed, action } } : {}) };
  }
  const changed = await dryRun(client, desired.object, live, stats);
  return changed ? { kind: 'drifted', object: { ref, object, reason: changed, action } } : { kind: 'same' };
}

async function dryRun(client: KubeClient, rendered: KubeObject, live: KubeObject, stats: SweepStats): Promise<Extract<DriftedObject['reason'], { kind: 'changed' }> | undefined> {
  stats.requests++;
  stats.dryRuns++;
  try {
    const answer = await client.apply(rendered, { fieldManager: FIELD_MANAGER, force: false, dryRun: true });
    const fields = applyWouldChange(answer, live);
    return fields.length === 0 ? undefined : { kind: 'changed', fields, managers: lastWriters(live) };
  } catch (err) {
    if (!(err instanceof KubeApiError && err.status === 409)) throw err;
    const conflicts = conflictsOf(err);
    return { kind: 'changed', fields: [...new Set(conflicts.map((c) => c.field))], managers: [...new Set(conflicts.map((c) => c.manager).filter((m) => m !== ''))] };
  }
}

/** Managers (other than Baton) that wrote the object after Baton's last apply: who probably changed it. */
function lastWriters(live: KubeObject): string[] {
  const entries = live.metadata.managedFields ?? [];
  const mine = entries.find((e) => e.manager === FIELD_MANAGER && e.operation === 'Apply');
  const since = mine?.time ?? '';
  return [...new Set(entries.filter((e) => e.manager !== FIELD_MANAGER && e.subresource !== 'status' && (e.time ?? '') >= since).map((e) => e.manager ?? '').filter((m) => m !== ''))];
}
