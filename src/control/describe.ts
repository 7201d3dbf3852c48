/**
 * Words for held and operator-touched plans, shared by `baton plan status`, the status file and
 * previews: where a plan waits and the command that moves it on. Pure.
 */
import type { CanaryWait, ControlStamp, PlanRun, RunState } from '../plans/state.js';

export interface InstanceRef {
  namespace: string;
  name: string;
}

/** `after step zk-0 of phase main` / `after phase canary`. */
export function waitPoint(w: CanaryWait): string {
  return w.phase !== undefined ? `after step ${w.after} of phase ${w.phase}` : `after phase ${w.after}`;
}

/** `baton plan continue shop/zk --plan deploy`. */
export function continueCommand(instance: InstanceRef, plan: string): string {
  return `baton plan continue ${instance.namespace}/${instance.name} --plan ${plan}`;
}

/** `by Ada <ada@example.com>: disk alarm` (whatever of who and why is known). */
export function stampText(s: ControlStamp): string {
  return `${s.by ? `by ${s.by}` : `by request ${s.requestId}`}${s.reason ? `: ${s.reason}` : ''}`;
}

/** One line on a held plan (paused or waiting): where it stands and what moves it on; undefined otherwise. */
export function holdText(instance: InstanceRef, run: PlanRun): string | undefined {
  const s = run.state;
  if (s.status === 'PAUSED') return `plan ${run.plan} paused ${stampText(s.paused)} at ${s.paused.at}; resume with \`baton plan resume ${instance.namespace}/${instance.name} --plan ${run.plan}\``;
  if (s.status === 'WAITING') return `plan ${run.plan} waits ${s.waits.map(waitPoint).join(' and ')} (canary); continue with \`${continueCommand(instance, run.plan)}\``;
  return undefined;
}

/** The state of a run, phase or step in one line (`baton plan status`). */
export function stateText(s: RunState): string {
  switch (s.status) {
    case 'NEVER_RUN':
    case 'PENDING':
      return s.status;
    case 'IN_PROGRESS':
      return `IN_PROGRESS since ${s.startedAt}${s.message ? ` - ${s.message}` : ''}`;
    case 'ERROR':
      return `ERROR (attempt ${s.attempt}) ${s.message}`;
    case 'COMPLETE':
      return `COMPLETE ${s.startedAt} -> ${s.finishedAt}${s.forced ? ` (force-completed ${stampText(s.forced)})` : ''}${s.carriedFrom ? ` (completed in run ${s.carriedFrom})` : ''}`;
    case 'FATAL_ERROR':
      return `FATAL_ERROR at ${s.finishedAt}: ${s.message}`;
    case 'PAUSED':
      return `PAUSED ${stampText(s.paused)} at ${s.paused.at}`;
    case 'WAITING':
      return `WAITING for continue ${s.waits.map(waitPoint).join(' and ')}`;
    case 'STOPPED':
      return `STOPPED ${stampText(s.stopped)} at ${s.finishedAt}`;
  }
}

interface PlanShape {
  strategy: string;
  phases: ReadonlyArray<{ name: string; strategy: string; steps: ReadonlyArray<{ name: string }> }>;
}

/**
 * Where a plan under canary strategies will wait for `baton plan continue` (previews): after the first
 * and the second phase (plan strategy) or step (phase strategy), when another one follows. Pure.
 */
export function canaryWaits(plan: PlanShape): CanaryWait[] {
  const canary = (s: string): boolean => s === 'serial-canary' || s === 'parallel-canary';
  const points = (names: readonly string[], phase?: string): CanaryWait[] =>
    names.slice(0, 2).flatMap((after, i) => (i + 1 < names.length ? [{ ...(phase !== undefined ? { phase } : {}), after, continues: i + 1 }] : []));
  const out: CanaryWait[] = [];
  for (const p of plan.phases) if (canary(p.strategy)) out.push(...points(p.steps.map((s) => s.name), p.name));
  if (canary(plan.strategy)) out.push(...points(plan.phases.map((p) => p.name)));
  return out;
}
