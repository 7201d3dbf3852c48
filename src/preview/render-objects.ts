/** Renders one plan of a loaded instance and returns its objects, for comparisons in previews. */
import type { KubeObject } from '../kube/object.js';
import { renderPlan, type Renderer, type RenderedPlan, type Problem } from '../render/index.js';
import type { InstanceAt } from './instance-at.js';

type Loaded = Extract<InstanceAt, { ok: true }>;

export type PlanRender = { ok: true; plan: RenderedPlan } | { ok: false; problems: Problem[] };

export async function renderLoaded(state: Loaded, plan: string, args: Record<string, string>, renderer: Renderer): Promise<PlanRender> {
  if (state.framework.decl.plans[plan] === undefined) return { ok: true, plan: emptyPlan(state, plan) };
  const result = await renderPlan({
    framework: state.framework,
    instance: { name: state.instance.name, namespace: state.instance.namespace },
    params: state.values,
    sensitiveValues: state.sensitiveValues,
    plan,
    args,
    renderer,
  });
  return result.ok ? { ok: true, plan: result.plan } : { ok: false, problems: result.problems };
}

/** Objects a plan applies (not those it deletes). */
export function appliedObjects(plan: RenderedPlan): KubeObject[] {
  const out: KubeObject[] = [];
  for (const phase of plan.phases) for (const step of phase.steps) for (const a of step.actions) if (a.action === 'apply') out.push(a.object);
  return out;
}

function emptyPlan(state: Loaded, plan: string): RenderedPlan {
  return {
    instance: { name: state.instance.name, namespace: state.instance.namespace },
    framework: { name: state.framework.name, version: state.framework.version, appVersion: state.framework.decl.appVersion ?? '' },
    plan,
    strategy: 'serial',
    phases: [],
    readiness: [],
    sensitiveParams: [],
  };
}
