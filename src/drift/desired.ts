/**
 * The desired objects of an instance, as drift detection compares them: every Apply object of its
 * lifecycle plans (deploy, update, upgrade) rendered at the desired state, each with the step that
 * owns it. An object rendered by several of them keeps each render: the one of the plan that last
 * applied it (the inventory says which) is compared, so the plan/phase/step annotations match.
 */
import { identityKey } from '../plans/inventory.js';
import { desiredStoredValues, type DesiredState } from '../plans/selection.js';
import type { ReadinessRule, RenderedPlan } from '../render/types.js';
import type { DesiredSet } from './sweep.js';
import type { DesiredObject } from './types.js';

export const LIFECYCLE_PLANS = ['deploy', 'update', 'upgrade'] as const;

export interface DesiredSource {
  desired: DesiredState;
  render(plan: string, args: Record<string, string>): Promise<RenderedPlan>;
}

export async function desiredSetOf(source: DesiredSource): Promise<DesiredSet> {
  const objects = new Map<string, DesiredObject[]>();
  const rules: ReadinessRule[] = [];
  for (const name of LIFECYCLE_PLANS.filter((p) => source.desired.plans.includes(p))) {
    const plan = await source.render(name, {});
    for (const rule of plan.readiness) if (!rules.some((r) => r.apiVersion === rule.apiVersion && r.kind === rule.kind)) rules.push(rule);
    for (const phase of plan.phases) {
      for (const step of phase.steps) {
        for (const a of step.actions) {
          if (a.action !== 'apply') continue;
          const d: DesiredObject = { object: a.object, plan: name, phase: phase.name, step: step.name, timeoutSeconds: step.timeoutSeconds, force: a.force, ...(a.noForce ? { noForce: true } : {}) };
          const key = identityKey({ apiVersion: a.object.apiVersion, kind: a.object.kind, name: a.object.metadata.name ?? '', ...(a.object.metadata.namespace !== undefined ? { namespace: a.object.metadata.namespace } : {}) });
          objects.set(key, [...(objects.get(key) ?? []), d]);
        }
      }
    }
  }
  const { frameworkVersion, frameworkHash } = source.desired;
  return { objects, rules, state: { frameworkVersion, frameworkHash, values: desiredStoredValues(source.desired) } };
}
