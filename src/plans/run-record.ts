/** Pure updates of a PlanRun record: building a fresh one and replacing one step's or phase's state. */
import { randomUUID } from 'node:crypto';
import type { RenderedPlan } from '../render/types.js';
import { pending, type PlanRun, type RunState } from './state.js';

export function newRun(plan: RenderedPlan, reason: string, args: Record<string, string>, id: string = randomUUID(), sourceCommit?: string): PlanRun {
  return {
    id,
    plan: plan.plan,
    reason,
    args: { ...args },
    frameworkVersion: plan.framework.version,
    ...(sourceCommit !== undefined ? { sourceCommit } : {}),
    strategy: plan.strategy,
    state: pending(),
    phases: plan.phases.map((ph) => ({ name: ph.name, strategy: ph.strategy, state: pending(), steps: ph.steps.map((s) => ({ name: s.name, state: pending() })) })),
  };
}

/**
 * Lines a checkpointed run up with the plan rendered again on resume: known steps keep their state
 * (so completed ones are skipped), anything new starts PENDING.
 */
export function alignRun(run: PlanRun, plan: RenderedPlan): PlanRun {
  const fresh = newRun(plan, run.reason, run.args, run.id, run.sourceCommit);
  return {
    ...fresh,
    state: run.state,
    ...(run.continued !== undefined ? { continued: run.continued } : {}),
    phases: fresh.phases.map((ph) => {
      const old = run.phases.find((p) => p.name === ph.name);
      return {
        ...ph,
        ...(old?.continued !== undefined ? { continued: old.continued } : {}),
        state: old?.state ?? ph.state,
        steps: ph.steps.map((s) => ({ ...s, state: old?.steps.find((o) => o.name === s.name)?.state ?? s.state })),
      };
    }),
  };
}

export function withPlanState(run: PlanRun, state: RunState): PlanRun {
  return { ...run, state };
}

export function withPhaseState(run: PlanRun, phase: string, state: RunState): PlanRun {
  return { ...run, phases: run.phases.map((p) => (p.name === phase ? { ...p, state } : p)) };
}

export function withStepState(run: PlanRun, phase: string, step: string, state: RunState): PlanRun {
  return {
    ...run,
    phases: run.phases.map((p) => (p.name === phase ? { ...p, steps: p.steps.map((s) => (s.name === step ? { ...s, state } : s)) } : p)),
  };
}

export function stepState(run: PlanRun, phase: string, step: string): RunState {
  return run.phases.find((p) => p.name === phase)?.steps.find((s) => s.name === step)?.state ?? { status: 'NEVER_RUN' };
}

export function phaseState(run: PlanRun, phase: string): RunState {
  return run.phases.find((p) => p.name === phase)?.state ?? { status: 'NEVER_RUN' };
}
