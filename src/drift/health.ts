/**
 * Live health of an instance's objects, by the same readiness gates a plan waits on (docs/readiness.md):
 * ready is Healthy, waiting is Progressing, failed is Degraded, absent is Missing; an object that
 * could not be read is Unknown. The instance takes the worst of its objects. Pure.
 */
import type { KubeObject, ObjectRef } from '../kube/object.js';
import { refLabel } from '../kube/object.js';
import type { EngineHooks } from '../plans/hooks.js';
import type { ReadinessRule } from '../render/types.js';
import { HEALTH_ORDER, type HealthReport, type HealthStatus, type ObjectHealth } from './types.js';

/** Objects that run once (Jobs, Pods): their absence is not a health problem (a TTL may remove them). */
export const RUN_ONCE_KINDS: ReadonlySet<string> = new Set(['batch/Job', '/Pod']);

export interface HealthInput {
  ref: ObjectRef;
  /** `undefined`: not in the cluster; `'unknown'`: could not be read. */
  live: KubeObject | undefined | 'unknown';
  runOnce: boolean;
}

export const MAX_UNHEALTHY_LISTED = 20;

export function healthOf(objects: readonly HealthInput[], hooks: Pick<EngineHooks, 'gate'>, rules: ReadinessRule[], now: Date, unknownReason?: string): HealthReport {
  const batch = objects.map((o) => o.live).filter((o): o is KubeObject => o !== undefined && o !== 'unknown');
  const ctx = { rules, now, imagePullGraceSeconds: 120, batch };
  const unhealthy: ObjectHealth[] = [];
  let worst: HealthStatus = 'Healthy';
  const note = (entry: ObjectHealth): void => {
    unhealthy.push(entry);
    if (HEALTH_ORDER.indexOf(entry.status) > HEALTH_ORDER.indexOf(worst)) worst = entry.status;
  };
  for (const o of objects) {
    const object = refLabel(o.ref);
    if (o.live === 'unknown') note({ object, status: 'Unknown', message: unknownReason ?? 'could not be read' });
    else if (o.live === undefined) {
      if (!o.runOnce) note({ object, status: 'Missing', message: 'not in the cluster' });
    } else {
      const verdict = hooks.gate(o.live, ctx);
      if (verdict.state === 'waiting') note({ object, status: 'Progressing', message: verdict.message });
      else if (verdict.state === 'failed') note({ object, status: 'Degraded', message: `${verdict.reason}: ${verdict.message}` });
    }
  }
  // The worst first, so a bounded list keeps what matters.
  unhealthy.sort((a, b) => HEALTH_ORDER.indexOf(b.status) - HEALTH_ORDER.indexOf(a.status) || a.object.localeCompare(b.object));
  return { status: worst, objects: unhealthy.slice(0, MAX_UNHEALTHY_LISTED), checked: objects.length };
}

export const UNKNOWN_HEALTH: HealthReport = { status: 'Unknown', objects: [], checked: 0 };
