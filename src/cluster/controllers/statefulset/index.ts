/** The StatefulSet controller: ControllerRevisions, ordinal pods with claims, status with revisions. */
import type { KubeObject } from '../../../kube/object.js';
import type { Controller, ControllerContext } from '../runtime/controller.js';
import { isControlledBy, nameOf, ownerKeyOf, record, records, spec, stableHash, status, str } from '../runtime/meta.js';
import { podFromTemplate } from '../runtime/pods.js';
import { simAnnotations } from '../sim.js';
import { ensureRevision } from '../runtime/revisions.js';
import { claimsFor, ordinalOf, POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, statefulStatus, statefulSteps } from './plan.js';

function revisionName(sts: KubeObject): string {
  return `${nameOf(sts)}-${stableHash(record(spec(sts).template)).slice(0, 10)}`;
}

function podFor(sts: KubeObject, ordinal: number, revision: string, ctx: ControllerContext): KubeObject {
  const podName = `${nameOf(sts)}-${ordinal}`;
  // A pod of the current (old) revision is built from that revision's template.
  const rev = ctx.informer('ControllerRevision').get(`${sts.metadata.namespace ?? ''}/${revision}`);
  const template = record(record(record(rev?.data).spec).template);
  const source = Object.keys(template).length > 0 ? template : record(spec(sts).template);
  const templateSpec = record(source.spec);
  const claims = claimsFor(sts, podName);
  const claimNames = new Set(claims.map((c) => str(record(c.template.metadata).name)));
  const volumes = [...records(templateSpec.volumes).filter((v) => !claimNames.has(str(v.name))), ...claims.map((c) => ({ name: str(record(c.template.metadata).name), persistentVolumeClaim: { claimName: c.name } }))];
  const overrides: Record<string, unknown> = { hostname: podName };
  if (str(spec(sts).serviceName)) overrides.subdomain = spec(sts).serviceName;
  if (volumes.length > 0) overrides.volumes = volumes;
  const { $patch: _ignored, ...clean } = source;
  return podFromTemplate(sts, clean, podName, { [REVISION_LABEL]: revision, [POD_NAME_LABEL]: podName, [POD_INDEX_LABEL]: String(ordinal) }, overrides);
}

async function ensureClaims(sts: KubeObject, podName: string, ctx: ControllerContext): Promise<void> {
  for (const { template, name } of claimsFor(sts, podName)) {
    if (ctx.informer('PersistentVolumeClaim').get(`${sts.metadata.namespace ?? ''}/${name}`)) continue;
    const meta = record(template.metadata);
    await ctx.api.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name,
        namespace: sts.metadata.namespace ?? 'default',
        labels: { ...(record(record(spec(sts).selector).matchLabels) as Record<string, string>), ...(record(meta.labels) as Record<string, string>) },
        annotations: { ...simAnnotations(sts), ...(record(meta.annotations) as Record<string, string>) },
      },
      spec: record(template.spec),
    });
  }
}

export function statefulSetController(): Controller {
  return {
    name: 'statefulset',
    kind: 'StatefulSet',
    watches: [
      { kind: 'Pod', keys: ownerKeyOf('StatefulSet') },
      { kind: 'ControllerRevision', keys: ownerKeyOf('StatefulSet') },
    ],
    async reconcile(key, ctx) {
      const sts = ctx.informer('StatefulSet').get(key);
      if (!sts || sts.metadata.deletionTimestamp !== undefined) return undefined;
      const updateRevision = await ensureRevision(sts, revisionName(sts), ctx);
      const currentRevision = str(status(sts).currentRevision) ?? updateRevision;
      const owned = ctx.informer('Pod').list(sts.metadata.namespace).filter((p) => isControlledBy(p, sts));
      const byOrdinal = new Map<number, KubeObject>();
      for (const pod of owned) {
        const ordinal = ordinalOf(sts, pod);
        if (ordinal !== undefined) byOrdinal.set(ordinal, pod);
      }
      const steps = statefulSteps({ sts, pods: byOrdinal, currentRevision, updateRevision });
      for (const step of steps) {
        if (step.kind === 'create') {
          const podName = `${nameOf(sts)}-${step.ordinal}`;
          await ensureClaims(sts, podName, ctx);
          await ctx.api.create(podFor(sts, step.ordinal, step.revision, ctx));
          ctx.events.emit(sts, 'Normal', 'SuccessfulCreate', `create Pod ${podName} in StatefulSet ${nameOf(sts)} successful`, 'statefulset-controller');
        } else {
          await ctx.api.delete(step.pod);
          ctx.events.emit(sts, 'Normal', 'SuccessfulDelete', `delete Pod ${nameOf(step.pod)} in StatefulSet ${nameOf(sts)} successful`, 'statefulset-controller');
        }
      }
      const pods = ctx.informer('Pod').list(sts.metadata.namespace).filter((p) => isControlledBy(p, sts));
      await ctx.api.patchStatus(ctx.informer('StatefulSet').get(key) ?? sts, statefulStatus(sts, pods, currentRevision, updateRevision));
      return steps.length > 0 ? { requeueAfterMs: 0 } : undefined;
    },
  };
}
