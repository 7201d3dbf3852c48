/**
 * The plan actions of operators (docs/operations.md): pause, resume, stop and continue act in place on
 * the unfinished run; retry, restart and force-complete of an ended run start a new run that carries
 * over what was done (every run's end is recorded in Git once, so an ended run is never reopened).
 * Pure functions of the checkpoint; a request that does not fit is a RequestRefusedError saying what
 * was expected, and changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { archiveActive, type Checkpoint } from '../plans/checkpoint.js';
import { isUnfinished } from '../plans/concurrency.js';
import { pending, startedAtOf, type ControlStamp, type PhaseRecord, type PlanRun, type RunState } from '../plans/state.js';
import { stampText, waitPoint } from './describe.js';
import { RequestRefusedError, type ControlRequest, type HandledRequest, type HandlerContext } from './types.js';

function stampOf(ctx: HandlerContext, r: ControlRequest): ControlStamp {
  return { requestId: r.id, at: ctx.now, ...(r.requestedBy ? { by: r.requestedBy } : {}), ...(r.reason ? { reason: r.reason } : {}) };
}

const who = (ctx: HandlerContext): string => `${ctx.instance.namespace}/${ctx.instance.name}`;

function checkPlanName(ctx: HandlerContext, r: ControlRequest): void {
  if (r.plan === undefined || ctx.plans.includes(r.plan)) return;
  const known = [ctx.checkpoint.active, ...ctx.checkpoint.history].some((run) => run?.plan === r.plan);
  if (!known) throw new RequestRefusedError('PLAN_UNKNOWN', `${who(ctx)} has no plan "${r.plan}" (plans: ${[...ctx.plans].sort().join(', ')})`, { plan: r.plan });
}

/** The unfinished run the request names (or the one running when it names none). */
function unfinishedRun(ctx: HandlerContext, r: ControlRequest): PlanRun {
  checkPlanName(ctx, r);
  const run = ctx.checkpoint.active;
  if (run === undefined || !isUnfinished(run)) {
    const last = run ?? ctx.checkpoint.history[0];
    throw new RequestRefusedError('PLAN_NOT_RUNNING', `no plan of ${who(ctx)} is running${r.plan ? ` (asked: ${r.plan})` : ''}${last ? `; the last run, ${last.plan}, is ${last.state.status}` : ''}`, { plan: r.plan });
  }
  if (r.plan !== undefined && run.plan !== r.plan) throw new RequestRefusedError('PLAN_NOT_RUNNING', `plan ${r.plan} of ${who(ctx)} is not running (${run.plan} is)`, { plan: r.plan });
  return run;
}

/** The newest run of the named plan (or the newest run at all), active or archived. */
function lastRun(ctx: HandlerContext, r: ControlRequest): PlanRun {
  checkPlanName(ctx, r);
  const runs = [...(ctx.checkpoint.active ? [ctx.checkpoint.active] : []), ...ctx.checkpoint.history];
  const run = runs.find((x) => r.plan === undefined || x.plan === r.plan);
  if (run === undefined) throw new RequestRefusedError('PLAN_NEVER_RAN', `${r.plan ? `plan ${r.plan}` : 'no plan'} of ${who(ctx)} has ${r.plan ? 'never run' : 'run yet'}: use baton plan trigger to run it`, { plan: r.plan });
  return run;
}

function withActive(cp: Checkpoint, run: PlanRun): Checkpoint {
  return { ...cp, active: run };
}

function phaseOf(ctx: HandlerContext, run: PlanRun, phase: string): PhaseRecord {
  const found = run.phases.find((p) => p.name === phase);
  if (found === undefined) throw new RequestRefusedError('PHASE_UNKNOWN', `plan ${run.plan} of ${who(ctx)} has no phase "${phase}" (phases: ${run.phases.map((p) => p.name).join(', ')})`, { plan: run.plan, phase });
  return found;
}

function checkStep(ctx: HandlerContext, run: PlanRun, phase: string, step: string): RunState {
  const ph = phaseOf(ctx, run, phase);
  const found = ph.steps.find((s) => s.name === step);
  if (found === undefined) throw new RequestRefusedError('STEP_UNKNOWN', `phase ${phase} of plan ${run.plan} has no step "${step}" (steps: ${ph.steps.map((s) => s.name).join(', ')})`, { plan: run.plan, phase, step });
  return found.state;
}

export function pause(ctx: HandlerContext, r: ControlRequest): HandledRequest {
  const run = unfinishedRun(ctx, r);
  if (run.state.status === 'PAUSED') throw new RequestRefusedError('PLAN_ALREADY_PAUSED', `plan ${run.plan} of ${who(ctx)} is already paused (${stampText(run.state.paused)})`, { plan: run.plan });
  const stamp = stampOf(ctx, r);
  const state: RunState = { status: 'PAUSED', startedAt: startedAtOf(run.state, ctx.now), message: `paused ${stampText(stamp)}`, paused: stamp };
  return { checkpoint: withActive(ctx.checkpoint, { ...run, state }), event: 'plan-paused', message: `plan ${run.plan} paused: the running step's applies finished, nothing more starts until it is resumed`, plan: run.plan, runId: run.id };
}

export function resume(ctx: HandlerContext, r: ControlRequest): HandledRequest {
  const run = unfinishedRun(ctx, r);
  if (run.state.status !== 'PAUSED') throw new RequestRefusedError('PLAN_NOT_PAUSED', `plan ${run.plan} of ${who(ctx)} is not paused (it is ${run.state.status}): only a paused plan resumes`, { plan: run.plan });
  const state: RunState = { status: 'IN_PROGRESS', startedAt: run.state.startedAt, message: `resumed ${stampText(stampOf(ctx, r))}` };
  return { checkpoint: withActive(ctx.checkpoint, { ...run, state }), event: 'plan-resumed', message: `plan ${run.plan} resumed`, plan: run.plan, runId: run.id };
}

export function stop(ctx: HandlerContext, r: ControlRequest): HandledRequest {
  const run = unfinishedRun(ctx, r);
  const stamp = stampOf(ctx, r);
  const state: RunState = { status: 'STOPPED', startedAt: startedAtOf(run.state, ctx.now), finishedAt: ctx.now, message: `stopped ${stampText(stamp)}`, stopped: stamp };
  return { checkpoint: withActive(ctx.checkpoint, { ...run, state }), event: 'plan-stopped', message: `plan ${run.plan} stopped; its state is kept (baton plan retry runs it on from where it stopped)`, plan: run.plan, runId: run.id };
}

export function continueRun(ctx: HandlerContext, r: ControlRequest): HandledRequest {
  const run = unfinishedRun(ctx, r);
  const s = run.state;
  if (s.status !== 'WAITING') throw new RequestRefusedError('PLAN_NOT_WAITING', `plan ${run.plan} of ${who(ctx)} is not waiting for a continue (it is ${s.status})`, { plan: run.plan });
  let next: PlanRun = { ...run, state: { status: 'IN_PROGRESS', startedAt: s.startedAt, message: `continued ${stampText(stampOf(ctx, r))}` } };
  for (const w of s.waits) {
    if (w.phase === undefined) next = { ...next, continued: Math.max(next.continued ?? 0, w.continues) };
    else next = { ...next, phases: next.phases.map((p) => (p.name === w.phase ? { ...p, continued: Math.max(p.continued ?? 0, w.continues) } : p)) };
  }
  return { checkpoint: withActive(ctx.checkpoint, next), event: 'plan-continued', message: `plan ${run.plan} continued ${s.waits.map(waitPoint).join(' and ')}`, plan: run.plan, runId: run.id, ...(s.waits[0]?.phase ? { phase: s.waits[0].phase } : {}) };
}

export function retry(ctx: HandlerContext, r: ControlRequest): HandledRequest {
  const run = lastRun(ctx, r);
  if (run.state.status !== 'FATAL_ERROR' && run.state.status !== 'STOPPED') {
    const hint = run.state.status === 'COMPLETE' ? ': it completed (baton plan restart runs it again)' : isUnfinished(run) ? ': it has not ended' : '';
    throw new RequestRefusedError('PLAN_NOT_FAILED', `plan ${run.plan} of ${who(ctx)} is ${run.state.status}, not failed or stopped${hint}`, { plan: run.plan });
  }
  checkDefined(ctx, run);
  const next = continuation(ctx, run, `retry of run ${run.id} ${stampText(stampOf(ctx, r))}`, () => false);
  return { checkpoint: startRun(ctx.checkpoint, run, next), event: 'plan-retried', message: `plan ${run.plan} retried from where run ${run.id} ${run.state.status === 'STOPPED' ? 'stopped' : 'failed'}: completed steps are not run again`, plan: run.plan, runId: next.id };
}

export function restart(ctx: HandlerContext, r: ControlRequest): HandledRequest {
  const run = lastRun(ctx, r);
  if (r.phase !== undefined) phaseOf(ctx, run, r.phase);
  if (r.phase !== undefined && r.step !== undefined) checkStep(ctx, run, r.phase, r.step);
  checkDefined(ctx, run);
  const again = (phase: string, step?: string): boolean => r.phase === undefined || (phase === r.phase && (r.step === undefined || step === undefined || step === r.step));
  const part = r.phase === undefined ? 'the whole plan' : r.step === undefined ? `phase ${r.phase}` : `step ${r.step} of phase ${r.phase}`;
  const next = continuation(ctx, run, `restart of ${part} of run ${run.id} ${stampText(stampOf(ctx, r))}`, again, true);
  return { checkpoint: startRun(ctx.checkpoint, run, next), event: 'plan-restarted', message: `plan ${run.plan}: ${part} runs again`, plan: run.plan, runId: next.id, ...(r.phase ? { phase: r.phase } : {}), ...(r.step ? { step: r.step } : {}) };
}

export function forceComplete(ctx: HandlerContext, r: ControlRequest): HandledRequest {
  const phase = r.phase ?? '';
  const step = r.step ?? '';
  const active = ctx.checkpoint.active;
  const inPlace = active !== undefined && isUnfinished(active) && (r.plan === undefined || active.plan === r.plan);
  const run = inPlace ? active : lastRun(ctx, r);
  checkPlanName(ctx, r);
  const state = checkStep(ctx, run, phase, step);
  if (state.status === 'COMPLETE') throw new RequestRefusedError('STEP_COMPLETE', `step ${step} of phase ${phase} of plan ${run.plan} is already COMPLETE (at ${state.finishedAt}): nothing to force`, { plan: run.plan, phase, step });
  const stamp = stampOf(ctx, r);
  const forced: RunState = { status: 'COMPLETE', startedAt: startedAtOf(state, ctx.now), finishedAt: ctx.now, message: `force-completed ${stampText(stamp)}`, forced: stamp };
  const mark = (x: PlanRun): PlanRun => ({ ...x, phases: x.phases.map((p) => (p.name === phase ? { ...p, steps: p.steps.map((s) => (s.name === step ? { ...s, state: forced } : s)) } : p)) });
  const base = { event: 'step-force-completed', plan: run.plan, phase, step };
  if (inPlace) return { ...base, checkpoint: withActive(ctx.checkpoint, mark(run)), message: `step ${step} of phase ${phase} marked COMPLETE without running it`, runId: run.id };
  checkDefined(ctx, run);
  const next = mark(continuation(ctx, run, `continues run ${run.id} after step ${step} of phase ${phase} was force-completed ${stampText(stamp)}`, () => false));
  return { ...base, checkpoint: startRun(ctx.checkpoint, run, next), message: `step ${step} of phase ${phase} marked COMPLETE without running it; plan ${run.plan} goes on from there in a new run`, runId: next.id };
}

function checkDefined(ctx: HandlerContext, run: PlanRun): void {
  if (!ctx.plans.includes(run.plan)) throw new RequestRefusedError('PLAN_UNKNOWN', `plan ${run.plan} is no longer defined by the desired framework version of ${who(ctx)} (plans: ${[...ctx.plans].sort().join(', ')})`, { plan: run.plan });
}

/**
 * A new run of `old`'s plan: steps `again` names start over, every other COMPLETE step and phase is
 * carried over as COMPLETE (`carriedFrom`), the rest is PENDING. `resetCanary`: restarted phases wait
 * for their canary continues again.
 */
function continuation(ctx: HandlerContext, old: PlanRun, reason: string, again: (phase: string, step?: string) => boolean, resetCanary = false): PlanRun {
  const carry = (s: RunState, rerun: boolean): RunState => (!rerun && s.status === 'COMPLETE' ? { ...s, carriedFrom: s.carriedFrom ?? old.id } : pending());
  const phases: PhaseRecord[] = old.phases.map((p) => {
    const rerunPhase = again(p.name);
    const steps = p.steps.map((s) => ({ name: s.name, state: carry(s.state, again(p.name, s.name)) }));
    const done = steps.every((s) => s.state.status === 'COMPLETE');
    const continued = resetCanary && rerunPhase ? undefined : p.continued;
    return { name: p.name, strategy: p.strategy, state: done ? carry(p.state, false) : pending(), steps, ...(continued !== undefined ? { continued } : {}) };
  });
  const sourceCommit = ctx.sourceCommit ?? old.sourceCommit;
  const continued = resetCanary ? undefined : old.continued;
  return {
    id: randomUUID(), plan: old.plan, reason, args: { ...old.args }, frameworkVersion: old.frameworkVersion,
    ...(sourceCommit !== undefined ? { sourceCommit } : {}), strategy: old.strategy, state: pending('waiting to start'), phases,
    ...(continued !== undefined ? { continued } : {}),
  };
}

/**
 * Makes `next` the active run: an unfinished active run is archived as it is (recorded as superseded),
 * a finished one simply archived. When `old` was the run applying the desired state, `next` takes its
 * place (its completion records the desired state as applied) and the failure's backoff is cleared.
 */
function startRun(cp: Checkpoint, old: PlanRun, next: PlanRun): Checkpoint {
  const archived = archiveActive(cp);
  const target = cp.target;
  if (target === undefined || target.runId !== old.id) return { ...archived, active: next };
  const { failure: _cleared, ...rest } = target;
  return { ...archived, active: next, target: { ...rest, runId: next.id } };
}
