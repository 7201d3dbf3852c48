/**
 * One step's batch: deletes first (waiting until the objects are gone, so a step can drop and
 * re-create a Job), then Namespaces and CRDs (CRDs must be Established before their custom
 * resources), then everything else with bounded concurrency, then the readiness gates.
 * Superseding ends the waits before and after the applies, never the applies: once the batch
 * starts applying, every apply of it reaches the server.
 */
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import { isRecord, refKey, refLabel, refOf, type KubeObject, type ObjectRef } from '../kube/object.js';
import type { BatchAction, ReadinessRule } from '../render/types.js';
import type { Clock } from './clock.js';
import { conflictsOf, FieldConflictError, GateFailedError } from './errors.js';
import { classifyWith, type EngineHooks } from './hooks.js';
import { applyPolicyOf, withoutFields, type FieldConflict } from './ownership.js';
import { forEachLimited } from './pool.js';
import { observedKey, oldestVersion, waitFor, type Observed, type WaitVerdict } from './watch-wait.js';

export const FIELD_MANAGER = 'baton';

export interface BatchContext {
  client: KubeClient;
  hooks: EngineHooks;
  clock: Clock;
  /** Aborts on the step's deadline: ends every wait of the batch (a timeout). */
  signal: AbortSignal;
  /**
   * Aborts when the plan is superseded (newer desired state, lost leadership): ends the wait for
   * deletions and the readiness wait, so the batch ends as `superseded` instead of waiting out its
   * deadline; applies in flight (and the CRD wait between them) still complete.
   */
  supersede?: AbortSignal;
  concurrency: number;
  rules: ReadinessRule[];
  imagePullGraceSeconds: number;
  onWaiting(object: string, message: string): void;
  /**
   * Objects (`refKey`) found absent just before the batch (the ownership check): the batch creates
   * them, so no pod of theirs predates their apply, and their namespace's pods are watched from the
   * apply answers on instead of listed.
   */
  absentBefore?: ReadonlySet<string>;
}

export interface BatchOutcome {
  applied: ObjectRef[];
  deleted: ObjectRef[];
  /** The applied objects as the server answered, with their uids (what Kubernetes Events point at). */
  live: AppliedObject[];
  /** Fields of `baton.dev/conflicts: Report` objects left to other managers (drift detection reports them). */
  leftToOthers: { object: string; conflicts: FieldConflict[] }[];
}

export type AppliedObject = ObjectRef & { uid?: string };

/** `ready`: every object passed its gate; `superseded`: the supersede signal ended a wait first. */
export type BatchResult = { kind: 'ready'; outcome: BatchOutcome } | { kind: 'superseded'; outcome: BatchOutcome };

const FIRST_KINDS = new Set(['Namespace', 'CustomResourceDefinition']);

/**
 * How long a readiness wait lasts before the pods of its workloads are followed (see WaitOptions.
 * contextAfterMs): pods explain a wait or fail it on an image that cannot be pulled (after a grace
 * period of its own), never end it, and most workloads are ready before then.
 */
export const POD_CONTEXT_AFTER_MS = 1000;

export async function runBatch(actions: readonly BatchAction[], ctx: BatchContext): Promise<BatchResult> {
  const deletes = actions.filter((a) => a.action === 'delete').map((a) => refOf(a.object));
  const applies = actions.filter((a): a is Extract<BatchAction, { action: 'apply' }> => a.action === 'apply');
  const live: KubeObject[] = [];
  const leftToOthers: BatchOutcome['leftToOthers'] = [];
  const outcome = (applied: readonly typeof applies[number][]): BatchOutcome => ({
    applied: applied.map((a) => refOf(a.object)),
    deleted: deletes,
    live: live.map((o) => ({ ...refOf(o), ...(o.metadata.uid ? { uid: o.metadata.uid } : {}) })),
    leftToOthers,
  });

  await forEachLimited(deletes, ctx.concurrency, async (ref) => {
    await ctx.client.delete(ref, { propagationPolicy: 'Background' });
  });
  if (await superseded((signal) => waitUntilGone(deletes, { ...ctx, signal }), ctx)) return { kind: 'superseded', outcome: outcome([]) };

  const first = applies.filter((a) => FIRST_KINDS.has(a.object.kind));
  const rest = applies.filter((a) => !FIRST_KINDS.has(a.object.kind));
  const applyAll = (list: typeof applies): Promise<void> =>
    forEachLimited(list, ctx.concurrency, async (a) => {
      const result = await applyOwned(ctx.client, a);
      live.push(result.object);
      if (result.leftToOthers.length > 0) leftToOthers.push({ object: refLabel(refOf(a.object)), conflicts: result.leftToOthers });
    });
  await applyAll(first);
  const crds = first.filter((a) => a.object.kind === 'CustomResourceDefinition').map((a) => a.object);
  if (crds.length > 0) await waitUntilReady(crds, crds, ctx);
  const restFrom = live.length;
  await applyAll(rest);
  // The answers of the applies just made: the Namespaces' and CRDs' are older than the CRD wait that followed them.
  const answered = live.slice(restFrom);
  // The apply answers are the objects as they are now: when every one already passes its gate (a
  // ConfigMap, a workload applied unchanged), nothing is listed or watched for readiness.
  if (readyAsAnswered(applies.map((a) => a.object), live, ctx)) return { kind: 'ready', outcome: outcome(applies) };
  if (await superseded((signal) => waitUntilReady(applies.map((a) => a.object), live, { ...ctx, signal }, answered), ctx)) {
    return { kind: 'superseded', outcome: outcome(applies) };
  }
  return { kind: 'ready', outcome: outcome(applies) };
}

/**
 * Runs a wait under the deadline and the supersede signal together; `true` when the supersede
 * signal ended it. The combined signal takes the reason of whichever signal fired first, so a
 * supersede is told from a deadline even when both have fired by the time the wait rejects.
 */
async function superseded(wait: (signal: AbortSignal) => Promise<void>, ctx: BatchContext): Promise<boolean> {
  const { supersede } = ctx;
  if (supersede === undefined) {
    await wait(ctx.signal);
    return false;
  }
  const signal = AbortSignal.any([ctx.signal, supersede]);
  try {
    await wait(signal);
    return false;
  } catch (err) {
    if (signal.aborted && signal.reason === supersede.reason) return true;
    throw err;
  }
}

/**
 * One apply under the object's ownership policy (plans/ownership.ts): force by default (Git wins for
 * the fields the framework renders), create-only for `IfNotPresent`, and for `Report` a non-forced
 * apply that leaves the conflicting fields to their managers and applies the rest.
 */
export async function applyOwned(client: KubeClient, action: ApplyAction): Promise<{ object: KubeObject; leftToOthers: FieldConflict[] }> {
  const obj = action.object;
  const policy = applyPolicyOf(obj, action.force ? true : action.noForce === true ? false : undefined);
  if (policy.create === 'if-absent') {
    const existing = await client.get(refOf(obj));
    if (existing !== undefined) return { object: existing, leftToOthers: [] };
  }
  if (policy.conflicts === 'force') return { object: await client.apply(obj, { fieldManager: FIELD_MANAGER, force: true }), leftToOthers: [] };
  try {
    return { object: await client.apply(obj, { fieldManager: FIELD_MANAGER, force: false }), leftToOthers: [] };
  } catch (err) {
    // On apply, 409 means a field owned by another manager, never a stale write: not retryable.
    if (!(err instanceof KubeApiError && err.status === 409)) throw err;
    if (policy.conflicts === 'fail') throw FieldConflictError.from(refOf(obj), err);
    const conflicts = conflictsOf(err);
    const rest = withoutFields(obj, conflicts.map((c) => c.field));
    if (rest === undefined || conflicts.length === 0) {
      throw FieldConflictError.from(refOf(obj), err, 'the object is annotated baton.dev/conflicts: Report, but the conflicting fields could not be left out of the apply');
    }
    try {
      return { object: await client.apply(rest, { fieldManager: FIELD_MANAGER, force: false }), leftToOthers: conflicts };
    } catch (again) {
      if (again instanceof KubeApiError && again.status === 409) throw FieldConflictError.from(refOf(obj), again, 'another manager took more fields while Baton applied the rest');
      throw again;
    }
  }
}

type ApplyAction = Extract<BatchAction, { action: 'apply' }>;

/**
 * Waits until `objects` pass their gates. `answered`: the objects as their applies answered, where
 * their watches start without a first list (issue #20; the CRD wait, before the rest is applied, lists).
 */
async function waitUntilReady(objects: readonly KubeObject[], batch: KubeObject[], ctx: BatchContext, answered?: readonly KubeObject[]): Promise<void> {
  const refs = dedupe(objects.map(refOf));
  const verdict = await waitFor({
    client: ctx.client,
    refs,
    clock: ctx.clock,
    signal: ctx.signal,
    isTransient: (err) => classifyWith(ctx.hooks, err).class === 'transient',
    onWaiting: (v) => ctx.onWaiting(v.object, v.message),
    ...(answered ? { known: answered } : {}),
    // Pods of the batch's workloads explain why they wait, and fail them when an image cannot be pulled.
    context: workloadNamespaces(objects).map((namespace) => ({ apiVersion: 'v1', kind: 'Pod', namespace, ...podsFrom(objects, namespace, answered, ctx.absentBefore) })),
    contextAfterMs: POD_CONTEXT_AFTER_MS,
    evaluate: (observed, pods) => readinessOf(refs, observed, batch, pods, ctx),
  });
  if (verdict.kind === 'failed') throw new GateFailedError(verdict.object, verdict.reason, verdict.message);
}

/**
 * Whether the applied objects pass their gates as the server answered the applies (no pods looked at:
 * the hooks explain a workload through its pods only while it waits). Anything else is watched.
 */
function readyAsAnswered(objects: readonly KubeObject[], answered: readonly KubeObject[], ctx: BatchContext): boolean {
  const observed = new Map(answered.map((o) => [observedKey(refOf(o)), o]));
  return readinessOf(dedupe(objects.map(refOf)), observed, [...answered], [], ctx).kind === 'done';
}

function readinessOf(refs: readonly ObjectRef[], observed: Observed, batch: KubeObject[], pods: readonly KubeObject[], ctx: BatchContext): WaitVerdict {
  const gateCtx = { rules: ctx.rules, now: new Date(ctx.clock.now()), imagePullGraceSeconds: ctx.imagePullGraceSeconds, batch };
  let firstWaiting: { object: string; message: string } | undefined;
  let waiting = 0;
  for (const ref of refs) {
    const obj = observed.get(observedKey(ref));
    const result = obj === undefined ? { state: 'waiting' as const, message: 'does not exist (yet)' } : ctx.hooks.explain(obj, ctx.hooks.gate(obj, gateCtx), pods, gateCtx);
    if (result.state === 'failed') return { kind: 'failed', object: refLabel(ref), reason: result.reason, message: result.message };
    if (result.state === 'waiting') {
      waiting++;
      firstWaiting ??= { object: refLabel(ref), message: result.message };
    }
  }
  if (firstWaiting === undefined) return { kind: 'done' };
  const others = waiting > 1 ? ` (and ${waiting - 1} more of ${refs.length} not ready)` : '';
  return { kind: 'waiting', object: firstWaiting.object, message: `${firstWaiting.message}${others}` };
}

export async function waitUntilGone(refs: readonly ObjectRef[], ctx: Pick<BatchContext, 'client' | 'clock' | 'signal' | 'hooks' | 'onWaiting'>): Promise<void> {
  const unique = dedupe(refs);
  await waitFor({
    client: ctx.client,
    refs: unique,
    clock: ctx.clock,
    signal: ctx.signal,
    isTransient: (err) => classifyWith(ctx.hooks, err).class === 'transient',
    onWaiting: (v) => ctx.onWaiting(v.object, v.message),
    evaluate: (observed) => {
      const left = unique.filter((r) => observed.get(observedKey(r)) !== undefined);
      const first = left[0];
      if (first === undefined) return { kind: 'done' };
      const obj = observed.get(observedKey(first));
      const finalizers = obj?.metadata.finalizers ?? [];
      const why = finalizers.length > 0 ? `being deleted, finalizers: ${finalizers.join(', ')}` : 'being deleted';
      return { kind: 'waiting', object: refLabel(first), message: `${why}${left.length > 1 ? ` (and ${left.length - 1} more)` : ''}` };
    },
  });
}

/**
 * Namespaces of objects that run pods, where pods are followed for context: every object with a pod
 * template (`spec.template`), with or without a selector in its rendered spec (a Job's selector is
 * made by the server). A CronJob has only a job template: its pods belong to Jobs it creates later.
 */
function workloadNamespaces(objects: readonly KubeObject[]): string[] {
  const hasPodTemplate = (o: KubeObject): boolean => isRecord(o['spec']) && isRecord(o['spec']['template']);
  return [...new Set(objects.filter(hasPodTemplate).map((o) => o.metadata.namespace).filter((n): n is string => n !== undefined))];
}

/**
 * Where the pods of `namespace` can be watched from without a list: when every workload of the batch
 * there was absent before the batch, no pod of theirs exists before their apply answers (the oldest).
 */
function podsFrom(objects: readonly KubeObject[], namespace: string, answered: readonly KubeObject[] | undefined, absentBefore: ReadonlySet<string> | undefined): { resourceVersion?: string } {
  if (answered === undefined || absentBefore === undefined) return {};
  const workloads = objects.filter((o) => o.metadata.namespace === namespace && isRecord(o['spec']) && isRecord(o['spec']['template'])).map((o) => refKey(refOf(o)));
  if (workloads.some((k) => !absentBefore.has(k))) return {};
  const answers = answered.filter((o) => workloads.includes(refKey(refOf(o))));
  if (answers.length !== workloads.length) return {};
  const resourceVersion = oldestVersion(answers);
  return resourceVersion !== undefined ? { resourceVersion } : {};
}

function dedupe(refs: readonly ObjectRef[]): ObjectRef[] {
  return [...new Map(refs.map((r) => [refKey(r), r])).values()];
}
