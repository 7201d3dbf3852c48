/**
 * The sections of a status file that tell apart what `state` sums up (docs/drift.md, "The status
 * file"): `sync` (is the desired commit fully applied; if not, what failed, where, and when it is
 * retried), `health` (the live health of the instance's objects), `drift` (which objects and fields
 * differ from the applied desired state, fights, the last repair) and `plans` (the last run of each
 * plan). Built from the engine's checkpoint plus what the agent measured. Pure.
 */
import type { Checkpoint, FightRecord, TargetFailure } from '../plans/checkpoint.js';
import { targetApplied } from '../plans/checkpoint.js';
import { isUnfinished } from '../plans/concurrency.js';
import type { PlanRun, RunState } from '../plans/state.js';
import { holdText, stampText } from '../control/describe.js';
import type { InstanceDrift, SelfHealPolicy } from '../drift/index.js';

/** Paused, Waiting, Stopped and Suspended: an operator holds the instance (docs/operations.md). */
export type SyncState = 'Synced' | 'OutOfSync' | 'Progressing' | 'Failed' | 'Refused' | 'Paused' | 'Waiting' | 'Stopped' | 'Suspended';

export interface SyncStatus {
  status: SyncState;
  /** The desired state the status reports on: the commit it was read at and its framework version. */
  desired: { commit: string; frameworkVersion?: string };
  /** The last desired state a change-driven plan fully applied. */
  lastApplied?: { commit?: string; frameworkVersion: string; at?: string; plan?: string; runId?: string };
  /** Why the desired state is not applied: the plan that failed, where, and when it is retried. */
  failure?: SyncFailure;
  /** One line for people: `update failed at phase main, step servers (KUBE_INVALID); retry 2 at ...`. */
  message: string;
}

export interface SyncFailure {
  plan: string;
  runId: string;
  phase?: string;
  step?: string;
  code: string;
  message: string;
  object?: string;
  attempts: number;
  nextRetryAt: string;
}

export type HealthState = 'Healthy' | 'Progressing' | 'Missing' | 'Degraded' | 'Unknown';

export interface HealthSection {
  status: HealthState;
  checkedAt: string;
  /** Objects that are not healthy, worst first (at most 20). */
  objects: { object: string; status: Exclude<HealthState, 'Healthy'>; message: string }[];
}

/** The status file lists at most this many unhealthy objects (drift/health.ts MAX_UNHEALTHY_LISTED). */
const MAX_HEALTH_LISTED = 20;

export type DriftState = 'InSync' | 'Drifted' | 'NotChecked' | 'Unknown';

export interface DriftObjectStatus {
  object: string;
  /** missing | deleting | changed */
  reason: string;
  fields?: string[];
  /** The field managers that own the drifted fields now, when known. */
  managers?: string[];
  /** repair: the self-heal policy repairs it; report: the object does not take fields from others. */
  action: 'repair' | 'report';
}

export interface DriftSection {
  status: DriftState;
  policy: 'repair' | 'report' | 'ignore';
  checkedAt: string;
  objects: DriftObjectStatus[];
  /** Objects another field manager keeps changing back: repairs are held back until `backoffUntil`. */
  fights: FightRecord[];
  /** Located messages about what could not be checked. */
  errors: string[];
  /** Why drift was not measured (NotChecked), or a note. */
  message?: string;
  lastRepair?: { runId: string; at: string; result: string; objects: string };
}

export interface PlanLastRun {
  id: string;
  reason: string;
  state: RunState;
}

export const STATUS_MAX_DRIFTED = 50;

/** Is the desired state applied? From the checkpoint (the engine's truth) and a refusal on record. */
export function syncOf(cp: Checkpoint | undefined, desired: SyncStatus['desired'], refused: boolean, suspended?: { since: string }): SyncStatus {
  const lastApplied = lastAppliedOf(cp);
  const base = { desired, ...(lastApplied ? { lastApplied } : {}) };
  const target = cp?.target;
  const failure = target?.failure;
  if (refused) return { ...base, status: 'Refused', message: 'the desired state is refused (see refusal); what runs stays as it was' };
  if (suspended) return { ...base, status: 'Suspended', message: `suspended since ${suspended.since} (suspend: true in the instance file): nothing is applied or repaired, schedules hold` };
  const active = cp?.active;
  if (cp !== undefined && active !== undefined) {
    const held = holdText(cp.instance, active);
    if (held !== undefined) return { ...base, status: active.state.status === 'PAUSED' ? 'Paused' : 'Waiting', message: held };
    if (active.state.status === 'STOPPED' && !targetApplied(cp)) return { ...base, status: 'Stopped', message: `plan ${active.plan} stopped ${stampText(active.state.stopped)}; \`baton plan retry\` or a new commit runs it again` };
  }
  if (cp?.active !== undefined && isUnfinished(cp.active) && cp.active.id === target?.runId) {
    return { ...base, status: 'Progressing', message: `${cp.active.plan} is applying the desired state${failure ? ` (retry after ${failure.attempts} failed attempt${failure.attempts === 1 ? '' : 's'})` : ''}` };
  }
  if (target !== undefined && failure !== undefined) return { ...base, ...failed(target.plan, failure) };
  if (targetApplied(cp)) return { ...base, status: 'Synced', message: 'the desired state is applied' };
  if (cp?.active !== undefined && isUnfinished(cp.active) && target === undefined) return { ...base, status: 'Progressing', message: `${cp.active.plan} is running` };
  return { ...base, status: 'OutOfSync', message: target ? 'the desired state is not applied yet' : 'never applied' };
}

function lastAppliedOf(cp: Checkpoint | undefined): SyncStatus['lastApplied'] {
  const a = cp?.applied;
  if (a === undefined) return undefined;
  return { frameworkVersion: a.frameworkVersion, ...(a.sourceCommit ? { commit: a.sourceCommit } : {}), ...(a.at ? { at: a.at } : {}), ...(a.plan ? { plan: a.plan } : {}), ...(a.runId ? { runId: a.runId } : {}) };
}

function failed(plan: string, f: TargetFailure): Pick<SyncStatus, 'status' | 'failure' | 'message'> {
  const where = f.phase !== undefined ? ` at phase ${f.phase}, step ${f.step ?? '?'}` : '';
  return {
    status: 'Failed',
    failure: { plan, runId: f.runId, ...(f.phase ? { phase: f.phase } : {}), ...(f.step ? { step: f.step } : {}), code: f.code, message: f.message, ...(f.object ? { object: f.object } : {}), attempts: f.attempts, nextRetryAt: f.nextRetryAt },
    message: `${plan} failed${where} (${f.code}); retry ${f.attempts + 1} at ${f.nextRetryAt} or on the next commit`,
  };
}

/** The last run of each plan, the repair and pod action pseudo-plans included. */
export function plansOf(cp: Checkpoint | undefined): Record<string, PlanLastRun> {
  const out: Record<string, PlanLastRun> = {};
  const runs: PlanRun[] = [...(cp?.active ? [cp.active] : []), ...(cp?.history ?? [])];
  if (cp?.repair?.last) runs.push(cp.repair.last);
  if (cp?.pods?.last) runs.push(cp.pods.last);
  for (const r of runs) {
    const seen = out[r.plan];
    if (seen === undefined || startOf(r.state) > startOf(seen.state)) out[r.plan] = { id: r.id, reason: r.reason, state: r.state };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

const startOf = (s: RunState): string => ('startedAt' in s ? s.startedAt : '');

/** The repair fields the checkpoint holds (last repair, fights) folded into a drift section. */
export function withRepairs(section: DriftSection, cp: Checkpoint | undefined): DriftSection {
  const last = cp?.repair?.last;
  const fights = cp?.repair?.fights.filter((f) => f.backoffUntil !== undefined) ?? section.fights;
  const lastRepair = last
    ? { runId: last.id, at: 'finishedAt' in last.state ? last.state.finishedAt : startOf(last.state), result: last.state.status, objects: last.reason.replace(/^drift: /, '') }
    : section.lastRepair;
  return { ...section, fights, ...(lastRepair ? { lastRepair } : {}) };
}

/** The health section of a drift check. */
export function healthSectionOf(d: InstanceDrift): HealthSection {
  return { status: d.health.status, checkedAt: d.checkedAt, objects: d.health.objects.map((o) => ({ ...o })) };
}

/** The drift section of a drift check, under the instance's self-heal policy. */
export function driftSectionOf(d: InstanceDrift, policy: SelfHealPolicy): DriftSection {
  const objects = d.objects.map((o): DriftObjectStatus => ({
    object: o.object,
    reason: o.reason.kind,
    ...(o.reason.kind === 'changed' ? { fields: o.reason.fields, ...(o.reason.managers.length > 0 ? { managers: o.reason.managers } : {}) } : {}),
    action: o.action,
  }));
  const base = { policy, checkedAt: d.checkedAt, objects, fights: [], errors: d.errors };
  if (d.notChecked) return { ...base, status: 'NotChecked', message: d.notChecked.message };
  if (d.checkpointMissing) {
    return { ...base, status: 'Drifted', message: policy === 'repair' ? 'the checkpoint is gone (was the namespace deleted?): the instance is deployed again' : 'the checkpoint is gone (was the namespace deleted?)' };
  }
  if (objects.length > 0) return { ...base, status: 'Drifted' };
  return { ...base, status: d.errors.length > 0 ? 'Unknown' : 'InSync' };
}

/**
 * The health after a repair completed: the objects it re-applied (`Service shop/web missing`, as the
 * checkpoint's repair record names them) passed their readiness gates, so they are no longer unhealthy;
 * the instance takes the worst of the objects that remain. When the list was cut at its bound and nothing
 * listed remains, the status is kept (unlisted objects may still be unhealthy); the next sweep measures.
 */
export function healthAfterRepair(health: HealthSection, repaired: readonly string[]): HealthSection {
  const fixed = (object: string): boolean => repaired.some((r) => r === object || r.startsWith(`${object} `));
  const objects = health.objects.filter((o) => !fixed(o.object));
  if (objects.length === health.objects.length) return health;
  const cut = health.objects.length >= MAX_HEALTH_LISTED;
  if (objects.length === 0 && cut) return { ...health, objects };
  const order: readonly HealthState[] = ['Healthy', 'Progressing', 'Missing', 'Degraded', 'Unknown'];
  const status = objects.reduce<HealthState>((worst, o) => (order.indexOf(o.status) > order.indexOf(worst) ? o.status : worst), 'Healthy');
  return { ...health, status, objects };
}

/** Whether two sections say the same apart from when they were checked (no commit for a check that found nothing new). */
export function sameLive(a: { health?: HealthSection | undefined; drift?: DriftSection | undefined }, b: { health?: HealthSection | undefined; drift?: DriftSection | undefined }): boolean {
  const strip = (x: { health?: HealthSection | undefined; drift?: DriftSection | undefined }): string =>
    JSON.stringify({ h: x.health ? { ...x.health, checkedAt: '' } : undefined, d: x.drift ? { ...x.drift, checkedAt: '', lastRepair: undefined, fights: undefined } : undefined });
  return strip(a) === strip(b);
}
