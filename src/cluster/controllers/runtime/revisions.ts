/**
 * ControllerRevisions as StatefulSets and DaemonSets keep them: one per pod template, numbered, the
 * newest template carrying the highest number (a template that comes back, as with `rollout undo`,
 * is renumbered), history beyond revisionHistoryLimit pruned when no pod uses it.
 */
import type { KubeObject } from '../../../kube/object.js';
import type { ControllerContext } from './controller.js';
import { controllerRef, isControlledBy, nameOf, num, record, spec, status, str } from './meta.js';

export const REVISION_HASH_LABEL = 'controller-revision-hash';

export async function ensureRevision(owner: KubeObject, name: string, ctx: ControllerContext, hashLabel = name): Promise<string> {
  const owned = ctx.informer('ControllerRevision').list(owner.metadata.namespace).filter((r) => isControlledBy(r, owner));
  const max = Math.max(0, ...owned.map((r) => num(r.revision, 0)));
  const existing = owned.find((r) => nameOf(r) === name);
  if (existing) {
    if (num(existing.revision, 0) < max) await ctx.api.patch(existing, { revision: max + 1 });
    return name;
  }
  await ctx.api.create({
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      namespace: owner.metadata.namespace ?? 'default',
      labels: { ...(record(record(spec(owner).selector).matchLabels) as Record<string, string>), [REVISION_HASH_LABEL]: hashLabel },
      ownerReferences: [controllerRef(owner)],
    },
    data: { spec: { template: { ...record(spec(owner).template), $patch: 'replace' } } },
    revision: max + 1,
  });
  const limit = num(spec(owner).revisionHistoryLimit, 10);
  const inUse = new Set(ctx.informer('Pod').list(owner.metadata.namespace).map((p) => p.metadata.labels?.[REVISION_HASH_LABEL]));
  const idle = owned
    .filter((r) => !inUse.has(r.metadata.labels?.[REVISION_HASH_LABEL]) && nameOf(r) !== str(status(owner).currentRevision))
    .sort((a, b) => num(a.revision, 0) - num(b.revision, 0));
  for (const r of idle.slice(0, Math.max(0, idle.length - limit))) await ctx.api.delete(r);
  return name;
}
