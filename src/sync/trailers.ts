/**
 * The trailer vocabulary of status commits: `git log` is the operations history, and `baton history`
 * reads these keys back. Keep names stable: scripts grep for them.
 */
import type { Trailers } from '../git/trailers.js';

export const TRAILER = {
  instance: 'Baton-Instance',
  plan: 'Baton-Plan',
  result: 'Baton-Result',
  event: 'Baton-Event',
  sourceCommit: 'Baton-Source-Commit',
  frameworkVersion: 'Baton-Framework-Version',
  runId: 'Baton-Run',
  request: 'Baton-Request',
  /** What an operator request asks (trigger, pause, resume, stop, retry, restart, force-complete, continue...). */
  action: 'Baton-Action',
  /** Who asked for an operator request or control transition: `Name <email>` (Git) or the direct user. */
  requestedBy: 'Baton-Requested-By',
  /** Why, as the operator wrote it (force-complete requires one). */
  reason: 'Baton-Reason',
  /** The phase and step an operator request named (restart, force-complete). */
  phase: 'Baton-Phase',
  step: 'Baton-Step',
  /** The sync state after this transition: Synced, OutOfSync, Progressing, Failed, Refused. */
  sync: 'Baton-Sync',
  /** The live health recorded with this transition: Healthy, Progressing, Missing, Degraded, Unknown. */
  health: 'Baton-Health',
  /** One per drifted object a drift check found or a repair re-applied: `Service shop/web missing`. */
  driftObject: 'Baton-Drift-Object',
  /** One per pod a pod action (restart, replace, recovery, decommission) acted on: `zk-1`. */
  pod: 'Baton-Pod',
} as const;

/** Drifted objects named in one commit's trailers, at most. */
export const MAX_DRIFT_TRAILERS = 20;

export type TransitionEvent = 'plan-started' | 'phase-complete' | 'plan-complete' | 'plan-failed' | 'plan-superseded' | 'refused' | 'removed' | 'requested' | 'observed' | 'scheduled' | 'drift-checked'
  /** An instance waits for its dependencies (dependsOn, docs/composition.md). */
  | 'waiting'
  /** The instance's target cluster cannot be used (docs/clusters.md): recorded once, not per poll. */
  | 'cluster-unreachable'
  /** Operators (src/control/, docs/operations.md): a carried-out request names its own event (`plan-paused`...). */
  | 'request' | 'request-refused' | 'plan-waiting' | 'suspended' | 'unsuspended'
  /** A pod request waits for the running plan (docs/recovery.md). */
  | 'pod-request-waiting';

export interface Transition {
  instance: { namespace: string; name: string };
  event: TransitionEvent;
  /** State word, e.g. COMPLETE, IN_PROGRESS, FATAL_ERROR, REFUSED. */
  result: string;
  sourceCommit: string;
  plan?: string;
  runId?: string;
  frameworkVersion?: string;
  /** Seconds the plan took, for the summary of a finished plan. */
  durationSeconds?: number;
  phase?: string;
  message?: string;
  /** Drifted objects (a drift check) or the objects a repair re-applied. */
  objects?: string[];
  /** Pods a pod action acted on; who asked for it or a request (a person, `recovery`, `decommission`). */
  pods?: string[];
  requestedBy?: string;
  sync?: string;
  health?: string;
  /** Operator requests: the event name recorded (`plan-paused`, `step-force-completed`...) for `request`. */
  requestEvent?: string;
  requestId?: string;
  action?: string;
  reason?: string;
  step?: string;
}

/** `prod/redis: backup COMPLETE in 42s` (namespace/instance, as in status/ paths and trailers). */
export function summaryOf(t: Transition): string {
  const who = `${t.instance.namespace}/${t.instance.name}`;
  const plan = t.plan ?? 'plan';
  switch (t.event) {
    case 'plan-started': return `${who}: ${plan} started`;
    case 'phase-complete': return `${who}: ${plan} phase ${t.phase ?? '?'} complete`;
    case 'plan-complete': return `${who}: ${plan} COMPLETE${t.durationSeconds !== undefined ? ` in ${formatSeconds(t.durationSeconds)}` : ''}`;
    case 'plan-failed': return `${who}: ${plan} ${t.result}${t.message ? `: ${t.message}` : ''}`;
    case 'plan-superseded': return `${who}: ${plan} superseded`;
    case 'refused': return `${who}: change refused${t.message ? `: ${t.message}` : ''}`;
    case 'removed': return `${who}: removed`;
    case 'requested': return `${who}: ${plan} requested`;
    case 'observed': return `${who}: no plan needed${t.message ? ` (${t.message})` : ''}`;
    case 'scheduled': return `${who}: ${plan} scheduled run recorded`;
    case 'drift-checked': return `${who}: ${t.message ?? 'drift checked'}`;
    case 'request': return `${who}: ${t.message ?? `${t.action ?? 'request'} carried out`}${t.requestedBy ? ` (by ${t.requestedBy})` : ''}`;
    case 'request-refused': return `${who}: ${t.action ?? 'request'} refused${t.message ? `: ${t.message}` : ''}`;
    case 'plan-waiting': return `${who}: ${plan} WAITING${t.message ? `: ${t.message}` : ''}`;
    case 'suspended': return `${who}: suspended${t.message ? ` (${t.message})` : ''}`;
    case 'unsuspended': return `${who}: no longer suspended`;
    case 'waiting': return `${who}: waiting${t.message ? ` for ${t.message}` : ''}`;
    case 'cluster-unreachable': return `${who}: ${t.message ?? 'target cluster unreachable'}`;
    case 'pod-request-waiting': return `${who}: ${t.message ?? 'a pod request waits'}`;
  }
}

export function trailersOf(t: Transition): Trailers {
  const out: [string, string][] = [
    [TRAILER.instance, `${t.instance.namespace}/${t.instance.name}`],
    [TRAILER.event, t.event === 'request' ? (t.requestEvent ?? 'request') : t.event],
    [TRAILER.result, t.result],
    [TRAILER.sourceCommit, t.sourceCommit],
  ];
  if (t.plan !== undefined) out.splice(1, 0, [TRAILER.plan, t.plan]);
  if (t.runId !== undefined) out.push([TRAILER.runId, t.runId]);
  if (t.frameworkVersion !== undefined) out.push([TRAILER.frameworkVersion, t.frameworkVersion]);
  if (t.sync !== undefined) out.push([TRAILER.sync, t.sync]);
  if (t.health !== undefined) out.push([TRAILER.health, t.health]);
  if (t.requestId !== undefined) out.push([TRAILER.request, t.requestId]);
  if (t.action !== undefined) out.push([TRAILER.action, t.action]);
  if (t.requestedBy !== undefined) out.push([TRAILER.requestedBy, t.requestedBy]);
  if (t.reason !== undefined) out.push([TRAILER.reason, oneLine(t.reason)]);
  if (t.phase !== undefined && t.requestId !== undefined) out.push([TRAILER.phase, t.phase]);
  if (t.step !== undefined) out.push([TRAILER.step, t.step]);
  for (const o of (t.objects ?? []).slice(0, MAX_DRIFT_TRAILERS)) out.push([TRAILER.driftObject, o]);
  if ((t.objects?.length ?? 0) > MAX_DRIFT_TRAILERS) out.push([TRAILER.driftObject, `... and ${(t.objects?.length ?? 0) - MAX_DRIFT_TRAILERS} more (see the status file)`]);
  for (const p of (t.pods ?? []).slice(0, MAX_DRIFT_TRAILERS)) out.push([TRAILER.pod, p]);
  if (t.requestedBy !== undefined && !out.some(([k]) => k === TRAILER.requestedBy)) out.push([TRAILER.requestedBy, t.requestedBy]);
  return out;
}

export function formatSeconds(s: number): string {
  if (s < 120) return `${Math.round(s)}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** A trailer value stays on one line. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').slice(0, 500);
}
