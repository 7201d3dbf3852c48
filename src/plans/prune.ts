/**
 * Pruning and removal: delete inventory entries (never objects found by label selector alone),
 * skip objects another instance owns (owner annotation, else instance label) and a namespace other
 * instances still live in, keep entries whose delete failed so the next attempt retries them.
 */
import { refLabel, type ObjectRef } from '../kube/object.js';
import { ownerValue } from '../render/labels.js';
import { ownedByOther } from './owner-check.js';
import { errorMessage } from '../errors.js';
import { waitUntilGone } from './batch.js';
import type { Clock } from './clock.js';
import type { EventListener } from './events.js';
import type { EngineHooks } from './hooks.js';
import { Inventory, type InventoryEntry } from './inventory.js';
import { forEachLimited } from './pool.js';
import type { CheckpointSession } from './session.js';

/** The label the renderer puts on every object (docs/templates.md, "enhancement"). */
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';
const PRUNE_WAIT_MS = 60_000;

export interface PruneReport {
  deleted: string[];
  skipped: string[];
  failed: { object: string; message: string }[];
}

export interface PruneContext {
  client: import('../kube/client.js').KubeClient;
  hooks: EngineHooks;
  clock: Clock;
  session: CheckpointSession;
  emit: EventListener;
  concurrency: number;
}

/** After `plan` completed: delete what its pruning family applied earlier and the instance no longer renders. */
export async function prune(ctx: PruneContext, plan: string, rendered: readonly ObjectRef[]): Promise<PruneReport> {
  return deleteEntries(ctx, Inventory.of(ctx.session.checkpoint.inventory).diff(rendered, plan));
}

/** Removal of the instance: everything in the inventory; CRDs and Namespaces last (they take their contents with them). */
export async function removeAll(ctx: PruneContext): Promise<PruneReport> {
  // One entry per object (an older checkpoint may hold the same object under two apiVersions).
  const all = Inventory.of(ctx.session.checkpoint.inventory).entries;
  const last = (e: InventoryEntry): boolean => e.kind === 'CustomResourceDefinition' || e.kind === 'Namespace';
  const first = await deleteEntries(ctx, all.filter((e) => !last(e)));
  const second = await deleteEntries(ctx, all.filter(last));
  return { deleted: [...first.deleted, ...second.deleted], skipped: [...first.skipped, ...second.skipped], failed: [...first.failed, ...second.failed] };
}

async function deleteEntries(ctx: PruneContext, entries: readonly InventoryEntry[]): Promise<PruneReport> {
  const report: PruneReport = { deleted: [], skipped: [], failed: [] };
  if (entries.length === 0) return report;
  const instance = ctx.session.checkpoint.instance;
  const base = { instance };
  const settled: ObjectRef[] = [];
  const pendingGone: ObjectRef[] = [];
  await forEachLimited(entries, ctx.concurrency, async (entry) => {
    const ref = plainRef(entry);
    try {
      const live = await ctx.client.get(ref);
      if (live === undefined) {
        settled.push(ref);
      } else if (ownedByOther(live, ownerValue(instance)) !== undefined) {
        settled.push(ref);
        report.skipped.push(refLabel(ref));
        ctx.emit({ type: 'prune', ...base, object: refLabel(ref), result: 'skipped', message: `owned by instance ${ownedByOther(live, ownerValue(instance))}` });
      } else if (ref.kind === 'Namespace' && (await otherInstancesIn(ctx, ref.name, instance.name)).length > 0) {
        // The namespace is shared: deleting it would delete the other instances' objects with it.
        const others = await otherInstancesIn(ctx, ref.name, instance.name);
        settled.push(ref);
        report.skipped.push(refLabel(ref));
        ctx.emit({ type: 'prune', ...base, object: refLabel(ref), result: 'skipped', message: `still used by instance(s) ${others.join(', ')}` });
      } else {
        await ctx.client.delete(ref, { propagationPolicy: 'Background' });
        pendingGone.push(ref);
      }
    } catch (err) {
      report.failed.push({ object: refLabel(ref), message: errorMessage(err) });
      ctx.emit({ type: 'prune', ...base, object: refLabel(ref), result: 'failed', message: errorMessage(err) });
    }
  });
  const timeout = new AbortController();
  void ctx.clock.sleep(PRUNE_WAIT_MS, timeout.signal).then(() => timeout.abort(new Error('still being deleted')), () => undefined);
  try {
    await waitUntilGone(pendingGone, { client: ctx.client, clock: ctx.clock, hooks: ctx.hooks, signal: timeout.signal, onWaiting: () => undefined });
    for (const ref of pendingGone) {
      settled.push(ref);
      report.deleted.push(refLabel(ref));
      ctx.emit({ type: 'prune', ...base, object: refLabel(ref), result: 'deleted', message: 'deleted' });
    }
  } catch (err) {
    // Some may be gone already; only those still present stay in the inventory.
    for (const ref of pendingGone) {
      const still = await ctx.client.get(ref).catch(() => ref);
      if (still === undefined) {
        settled.push(ref);
        report.deleted.push(refLabel(ref));
      } else report.failed.push({ object: refLabel(ref), message: errorMessage(err) });
    }
  } finally {
    timeout.abort();
  }
  await ctx.session.update((cp) => ({ ...cp, inventory: Inventory.of(cp.inventory).without(settled).entries }));
  return report;
}

/** Other Baton instances with a checkpoint in `namespace` (their ConfigMaps carry `baton.dev/checkpoint`). */
async function otherInstancesIn(ctx: PruneContext, namespace: string, self: string): Promise<string[]> {
  const { items } = await ctx.client.list('v1', 'ConfigMap', namespace, { labelSelector: 'baton.dev/checkpoint=true' });
  return items.map((cm) => cm.metadata.labels?.[INSTANCE_LABEL] ?? '').filter((name) => name !== '' && name !== self).map((name) => `${namespace}/${name}`);
}

function plainRef(e: InventoryEntry): ObjectRef {
  return { apiVersion: e.apiVersion, kind: e.kind, name: e.name, ...(e.namespace !== undefined ? { namespace: e.namespace } : {}) };
}
