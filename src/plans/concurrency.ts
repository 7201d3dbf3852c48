/**
 * Plan concurrency (CONTRACT.md): one plan per instance at a time. A newer desired state supersedes
 * the rest of an unfinished plan (after its running step); a refused change, or no change, leaves an
 * unfinished plan running (resumed after a restart). Pure.
 */
import { isFinished, isHeld, type PlanRun } from './state.js';
import type { Selection } from './selection.js';

type Run = Extract<Selection, { kind: 'run' }>;
type Refuse = Extract<Selection, { kind: 'refuse' }>;

export type Decision =
  | { kind: 'start'; selection: Run; supersedes?: PlanRun; refusal?: undefined }
  | { kind: 'resume'; run: PlanRun; refusal?: Refuse }
  | { kind: 'remove'; cleanupPlan: string | undefined; reason: string; supersedes?: PlanRun; refusal?: undefined }
  | { kind: 'idle'; reason: string; refusal?: Refuse };

export function isUnfinished(run: PlanRun | undefined): run is PlanRun {
  return run !== undefined && !isFinished(run.state) && run.state.status !== 'NEVER_RUN';
}

export function decide(active: PlanRun | undefined, selection: Selection): Decision {
  const running = isUnfinished(active) ? active : undefined;
  if (running !== undefined && isHeld(running.state)) {
    const held = heldDecision(running, selection);
    if (held !== undefined) return held;
  }
  const over = running ? { supersedes: running } : {};
  switch (selection.kind) {
    case 'run':
      return { kind: 'start', selection, ...over };
    case 'remove':
      return { kind: 'remove', cleanupPlan: selection.cleanupPlan, reason: selection.reason, ...over };
    case 'refuse':
      return running ? { kind: 'resume', run: running, refusal: selection } : { kind: 'idle', reason: selection.message, refusal: selection };
    case 'nothing':
      return running ? { kind: 'resume', run: running } : { kind: 'idle', reason: selection.reason };
  }
}

/**
 * A held plan (docs/operations.md) is not resumed on its own. A PAUSED plan holds the instance: a new
 * desired state waits until `baton plan resume` (an operator paused it for a reason); only the removal
 * of the instance proceeds. A plan WAITING for a canary continue is superseded by a new desired state
 * like any running plan (a fixed commit replaces a bad canary).
 */
function heldDecision(run: PlanRun, selection: Selection): Decision | undefined {
  const refusal = selection.kind === 'refuse' ? { refusal: selection } : {};
  if (run.state.status === 'PAUSED') {
    if (selection.kind === 'remove') return undefined;
    const waiting = selection.kind === 'run' ? `; ${selection.plan} (${selection.reason}) waits until it is resumed` : '';
    return { kind: 'idle', reason: `plan ${run.plan} is paused${waiting}`, ...refusal };
  }
  if (selection.kind === 'run' || selection.kind === 'remove') return undefined;
  return { kind: 'idle', reason: `plan ${run.plan} waits for baton plan continue`, ...refusal };
}

/** For a process running a plan: does this newly selected change supersede it (after the running step's applies)? */
export function supersedes(selection: Selection): boolean {
  return selection.kind === 'run' || selection.kind === 'remove';
}
