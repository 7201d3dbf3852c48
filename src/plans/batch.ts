/**
 * One step's batch: deletes first (waiting until the objects are gone, so a step can drop and
 * re-create a Job), then Namespaces and CRDs (CRDs must be Established before their custom
 * resources), then everything else with bounded concurrency, then the readiness gates.
 */
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import { refKey, refLabel, refOf, type KubeObject, type ObjectRef } from '../kube/object.js';
import type { BatchAction, ReadinessRule } from '../render/types.js';
import type { Clock } from './clock.js';
import { FieldConflictError, GateFailedError } from './errors.js';
import { classifyWith, type EngineHooks } from './hooks.js';
import { forEachLimited } from './pool.js';
import { observedKey, waitFor, type Observed, type WaitVerdict } from './watch-wait.js';

export const FIELD_MANAGER = 'baton';

export interface BatchContext {
  client: KubeClient;
  hooks: EngineHooks;
  clock: Clock;
  /** Aborts on the step's deadline. */
  signal: AbortSignal;
  concurrency: number;
  rules: ReadinessRule[];
  imagePullGraceSeconds: number;
  onWaiting(object: string, message: string): void;
}

export interface BatchOutcome {
  applied: ObjectRef[];
  deleted: ObjectRef[];
  /** The applied objects as the server answered, with their uids (what Kubernetes Events point at). */
  live: AppliedObject[];
}

export type AppliedObject = ObjectRef & { uid?: string };

const FIRST_KINDS = new Set(['Namespace', 'CustomResourceDefinition']);

export async function runBatch(actions: readonly BatchAction[], ctx: BatchContext): Promise<BatchOutcome> {
  const deletes = actions.filter((a) => a.action === 'delete').map((a) => refOf(a.object));
  const applies = actions.filter((a): a is Extract<BatchAction, { action: 'apply' }> => a.action === 'apply');

  await forEachLimited(deletes, ctx.concurrency, async (ref) => {
    await ctx.client.delete(ref, { propagationPolicy: 'Background' });
  });
  await waitUntilGone(deletes, ctx);

  const first = applies.filter((a) => FIRST_KINDS.has(a.object.kind));
  const rest = applies.filter((a) => !FIRST_KINDS.has(a.object.kind));
  const live: KubeObject[] = [];
  const applyAll = (list: typeof applies): Promise<void> =>
    forEachLimited(list, ctx.concurrency, async (a) => {
      live.push(await applyOne(ctx.client, a.object, a.force));
    });
  await applyAll(first);
  const crds = first.filter((a) => a.object.kind === 'CustomResourceDefinition').map((a) => a.object);
  if (crds.length > 0) await waitUntilReady(crds, crds, ctx);
  await applyAll(rest);
  await waitUntilReady(applies.map((a) => a.object), live, ctx);
  return { applied: applies.map((a) => refOf(a.object)), deleted: deletes, live: live.map((o) => ({ ...refOf(o), ...(o.metadata.uid ? { uid: o.metadata.uid } : {}) })) };
}

async function applyOne(client: KubeClient, obj: KubeObject, force: boolean): Promise<KubeObject> {
  try {
    return await client.apply(obj, { fieldManager: FIELD_MANAGER, force });
  } catch (err) {
    // On apply, 409 means a field owned by another manager, never a stale write: not retryable.
    if (err instanceof KubeApiError && err.status === 409) throw FieldConflictError.from(refOf(obj), err);
    throw err;
  }
}

async function waitUntilReady(objects: readonly KubeObject[], batch: KubeObject[], ctx: BatchContext): Promise<void> {
  const refs = dedupe(objects.map(refOf));
  const verdict = await waitFor({
    client: ctx.client,
    refs,
    clock: ctx.clock,
    signal: ctx.signal,
    isTransient: (err) => classifyWith(ctx.hooks, err).class === 'transient',
    onWaiting: (v) => ctx.onWaiting(v.object, v.message),
    // Pods of the batch's workloads explain why they wait, and fail them when an image cannot be pulled.
    context: workloadNamespaces(objects).map((namespace) => ({ apiVersion: 'v1', kind: 'Pod', namespace })),
    evaluate: (observed, pods) => readinessOf(refs, observed, batch, pods, ctx),
  });
  if (verdict.kind === 'failed') throw new GateFailedError(verdict.object, verdict.reason, verdict.message);
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

/** Namespaces of objects that run pods (they have a pod template), where pods are followed for context. */
function workloadNamespaces(objects: readonly KubeObject[]): string[] {
  const spec = (o: KubeObject): unknown => o['spec'];
  const hasTemplate = (o: KubeObject): boolean => {
    const s = spec(o);
    return typeof s === 'object' && s !== null && 'template' in s && 'selector' in s;
  };
  return [...new Set(objects.filter(hasTemplate).map((o) => o.metadata.namespace).filter((n): n is string => n !== undefined))];
}

function dedupe(refs: readonly ObjectRef[]): ObjectRef[] {
  return [...new Map(refs.map((r) => [refKey(r), r])).values()];
}
