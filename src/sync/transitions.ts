/**
 * Which plan transitions are still to be recorded, derived by comparing the record (the last status
 * committed or queued for an instance) with the engine's checkpoint (the source of truth for plan
 * progress). Deriving rather than reacting to events makes recording idempotent: a restart, a resumed
 * run, a repeated event or a rewrite after pruning records nothing twice, and a transition lost in a
 * crash between the checkpoint write and the status commit is recorded once, at the next look. Pure.
 *
 * Per run the vocabulary is: `plan-started` (once), `phase-complete` (once per phase) and at most one
 * end: `plan-complete`, `plan-failed`, or `plan-superseded` when a newer run replaced an unfinished one.
 * An interruption (shutdown, lost lease) is not an end: the same run resumes.
 */
import type { Checkpoint } from '../plans/checkpoint.js';
import { isFinished, type PlanRun } from '../plans/state.js';

export type PlanTransitionEvent = 'plan-started' | 'phase-complete' | 'plan-complete' | 'plan-failed' | 'plan-superseded';

export interface PlanTransition {
  event: PlanTransitionEvent;
  /** The run as the checkpoint has it now. */
  run: PlanRun;
  /** For `phase-complete`. */
  phase?: string;
}

/** What the record says about plans: the status file's current plan and the ids of the earlier ones. */
export interface PlanRecord {
  currentPlan?: PlanRun;
  recentPlans: ReadonlyArray<{ id: string }>;
}

const started = (run: PlanRun): boolean => run.state.status !== 'PENDING' && run.state.status !== 'NEVER_RUN';

/** The transitions the checkpoint shows and the record does not, oldest first. */
export function unrecordedTransitions(record: PlanRecord | undefined, checkpoint: Checkpoint | undefined): PlanTransition[] {
  if (checkpoint === undefined) return [];
  const recorded = record?.currentPlan;
  const known = new Set((record?.recentPlans ?? []).map((p) => p.id));
  const out: PlanTransition[] = [];
  // Runs the checkpoint archived after the recorded one (newest first there): oldest first here. With
  // no plan on record (a new instance whose first runs were lost in a crash, a refusal, a new status
  // branch), every archived run the record does not name.
  const at = recorded === undefined ? checkpoint.history.length : checkpoint.history.findIndex((r) => r.id === recorded.id);
  const newer = at < 0 ? [] : checkpoint.history.slice(0, at).reverse();
  if (recorded !== undefined && recorded.id !== checkpoint.active?.id && at >= 0) {
    const archived = checkpoint.history[at];
    if (archived !== undefined) out.push(...transitionsOf(archived, recorded, true));
  }
  for (const run of newer) if (!known.has(run.id)) out.push(...transitionsOf(run, undefined, true));
  const active = checkpoint.active;
  if (active !== undefined && !known.has(active.id)) out.push(...transitionsOf(active, recorded?.id === active.id ? recorded : undefined, false));
  return out;
}

/**
 * What `run` (as the checkpoint has it) still needs recorded, given what the record shows of the same
 * run (`recorded`, undefined when the record does not know it). `archived`: a newer run replaced it.
 */
function transitionsOf(run: PlanRun, recorded: PlanRun | undefined, archived: boolean): PlanTransition[] {
  if (!started(run)) return [];
  const out: PlanTransition[] = [];
  // A run recorded before it started (a retry or restart an operator asked for, src/control/) still starts once.
  if (recorded === undefined || !started(recorded)) out.push({ event: 'plan-started', run });
  if (recorded !== undefined && ended(recorded.state)) return out;
  const phases = run.phases
    .filter((p, i) => p.state.status === 'COMPLETE' && !phaseRecorded(recorded, p.name, i))
    .sort((a, b) => finishedAt(a.state) - finishedAt(b.state));
  for (const p of phases) out.push({ event: 'phase-complete', run, phase: p.name });
  if (run.state.status === 'COMPLETE') out.push({ event: 'plan-complete', run });
  else if (run.state.status === 'FATAL_ERROR') out.push({ event: 'plan-failed', run });
  else if (archived) out.push({ event: 'plan-superseded', run });
  return out;
}

/*
 * A record read back from Git is masked like every status file: a sensitive value equal to a phase
 * name or a state word shows as `***` there. So the record is read by structure too: an ended state
 * has `finishedAt`, a failed one an `error`; a phase whose name differs is matched by its position.
 */
function ended(state: PlanRun['state']): boolean {
  return isFinished(state) || 'finishedAt' in state;
}

function completed(state: PlanRun['state']): boolean {
  return state.status === 'COMPLETE' || ('finishedAt' in state && !('error' in state));
}

function phaseRecorded(recorded: PlanRun | undefined, name: string, index: number): boolean {
  if (recorded === undefined) return false;
  const phase = recorded.phases.find((p) => p.name === name) ?? recorded.phases[index];
  return phase !== undefined && completed(phase.state);
}

function finishedAt(state: PlanRun['state']): number {
  return 'finishedAt' in state ? Date.parse(state.finishedAt) : Number.MAX_SAFE_INTEGER;
}
