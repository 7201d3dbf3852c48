/**
 * Whether a dependency is ready for its dependents' plans: its checkpoint says its desired state (as
 * the dependency's file reads at the same commit) was fully applied by a completed plan, no plan of it
 * is running, and its objects are healthy by the same readiness gates its plans wait on. Reads the
 * cluster only through the KubeClient; the dependency's desired state comes from the caller's loader.
 */
import type { KubeClient } from '../../kube/client.js';
import { groupOf, type KubeObject } from '../../kube/object.js';
import { ConfigMapCheckpointStore } from '../../plans/checkpoint-configmap.js';
import { targetApplied } from '../../plans/checkpoint.js';
import { isUnfinished } from '../../plans/concurrency.js';
import { defaultHooks } from '../../plans/defaults.js';
import { desiredStoredValues, type DesiredState } from '../../plans/selection.js';
import { changedKeys } from '../../plans/values.js';
import { healthOf, RUN_ONCE_KINDS } from '../../drift/health.js';
import type { RenderedPlan } from '../../render/types.js';
import { errorMessage } from '../../errors.js';
import { keyOf, type InstanceKeyRef } from './graph.js';

export type DependencyState =
  | { ready: true; instance: string }
  | { ready: false; instance: string; reason: string };

/** What the readiness check needs of the dependency as its file reads now. */
export interface DependencySource {
  desired: DesiredState;
  render: (plan: string, args: Record<string, string>) => Promise<RenderedPlan>;
}

export async function dependencyState(client: KubeClient, key: InstanceKeyRef, load: () => Promise<DependencySource>, now: Date): Promise<DependencyState> {
  const instance = keyOf(key);
  const waiting = (reason: string): DependencyState => ({ ready: false, instance, reason });
  const stored = await new ConfigMapCheckpointStore(client).load(key);
  const cp = stored?.checkpoint;
  if (cp === undefined || cp.applied === undefined) return waiting('it has not been deployed yet');
  if (isUnfinished(cp.active)) return waiting(`its ${cp.active.plan} plan is running`);
  if (!targetApplied(cp)) return waiting(`its desired state is not applied${cp.target?.failure ? ` (${cp.target.plan} failed: ${cp.target.failure.code})` : ''}`);
  let source: DependencySource;
  try {
    source = await load();
  } catch (err) {
    return waiting(`it cannot be loaded: ${errorMessage(err)}`);
  }
  const desired = desiredStoredValues(source.desired);
  if (cp.applied.frameworkVersion !== source.desired.frameworkVersion || cp.applied.frameworkHash !== source.desired.frameworkHash || changedKeys(cp.applied.values, desired).length > 0) {
    return waiting('its desired state at this commit is not applied yet');
  }
  const rules = (await source.render('deploy', {}).catch(() => undefined))?.readiness ?? [];
  const inputs = await Promise.all(cp.inventory.map(async (e) => {
    let live: KubeObject | undefined | 'unknown';
    try {
      live = await client.get(e);
    } catch {
      live = 'unknown';
    }
    return { ref: e, live, runOnce: RUN_ONCE_KINDS.has(`${groupOf(e.apiVersion)}/${e.kind}`) };
  }));
  const health = healthOf(inputs, defaultHooks(), rules, now);
  if (health.status !== 'Healthy') {
    const first = health.objects[0];
    return waiting(`it is ${health.status}${first ? ` (${first.object}: ${first.message})` : ''}`);
  }
  return { ready: true, instance };
}
