/**
 * `status/<namespace>/<instance>.yaml`: what the agent writes back to Git for one instance. Built in
 * one place from the engine's checkpoint (the source of truth for plan progress) plus what only the
 * agent knows (the source commit, the content fingerprint it acted on, refusals of bad content, the
 * next schedule times). Size is bounded: the running/last plan in full, a few earlier ones as
 * summaries; `git log` keeps the rest.
 */
import jsYaml from 'js-yaml';
import type { PodRequestWait } from '../recovery/waits.js';
import { z } from 'zod';
import type { Checkpoint, RequestRecord } from '../plans/checkpoint.js';
import { isFinished, type PlanRun, type RunState } from '../plans/state.js';
import { plansOf, STATUS_MAX_DRIFTED, syncOf, withRepairs, type DriftSection, type HealthSection, type PlanLastRun, type SyncStatus } from './status-sections.js';
import { maskSensitive } from '../render/mask.js';
import { refKey } from '../kube/object.js';
import { BatonError } from '../errors.js';

export const STATUS_API_VERSION = 'baton.dev/v1alpha1';
export const RECENT_PLANS_LIMIT = 5;

export interface InstanceKey { namespace: string; name: string }

export const statusPath = (i: InstanceKey): string => `status/${i.namespace}/${i.name}.yaml`;

/** Content ids of what the agent last acted on: unchanged ids mean nothing to render. */
export interface Fingerprint {
  instance: string;
  framework?: string;
  request?: string;
  /** Digest of the instance's values files' blob ids and its valuesFrom objects' uid/resourceVersion (never their content). */
  values?: string;
}

export interface ScheduleStatus {
  plan: string;
  cron: string;
  timezone: string;
  lastRun?: string;
  nextRun?: string;
}

export interface RefusalStatus {
  code: string;
  message: string;
  at: string;
  problems?: string[];
  /** The commit refused (signature refusals: the desired state there was not acted on). */
  commit?: string;
}

/** The instance is a child created by another instance's `Instance` task (docs/composition.md). */
export interface ParentStatus {
  /** `<namespace>/<name>` of the parent instance. */
  instance: string;
  /** The parent's Instance task that renders this child. */
  task: string;
}

/** A plan of this instance waits for instances it `dependsOn` (docs/composition.md). */
export interface WaitingStatus {
  /** `<namespace>/<name>` of each dependency that is not ready, with why. */
  on: { instance: string; reason: string }[];
  since: string;
  message: string;
}

export interface PlanSummary {
  id: string;
  plan: string;
  reason: string;
  state: RunState;
}

/** The file's content. `state` is the one-word summary people and scripts look at first. */
export interface InstanceStatus {
  apiVersion: typeof STATUS_API_VERSION;
  kind: 'InstanceStatus';
  instance: InstanceKey;
  framework: { name: string; version?: string };
  state: 'PENDING' | 'IN_PROGRESS' | 'COMPLETE' | 'ERROR' | 'FATAL_ERROR' | 'REFUSED' | 'REMOVED' | 'PAUSED' | 'WAITING' | 'STOPPED' | 'SUSPENDED';
  sourceCommit: string;
  updatedAt: string;
  observed: Fingerprint;
  /** Present for a child instance: no instance file of its own; it is created, updated and removed by its parent. */
  parent?: ParentStatus;
  refusal?: RefusalStatus;
  /** `suspend: true` in the instance file: nothing is applied or repaired, schedules hold (docs/operations.md). */
  suspended?: SuspendedStatus;
  /** Present while a plan waits for dependencies (dependsOn). */
  waiting?: WaitingStatus;
  /** Is the desired commit fully applied (status-sections.ts). Absent only in files written before it existed. */
  sync?: SyncStatus;
  /** Live health of the instance's objects, refreshed on the drift interval. */
  health?: HealthSection;
  /** Drift from the applied desired state, fights, the last repair. */
  drift?: DriftSection;
  /** The last run of each plan (deploy, update, backup, repair, ...). */
  plans?: Record<string, PlanLastRun>;
  /** The target cluster of an instance with `cluster:` (docs/clusters.md); absent: the agent's own cluster. */
  cluster?: ClusterStatus;
  currentPlan?: PlanRun;
  recentPlans: PlanSummary[];
  inventory: string[];
  schedules: ScheduleStatus[];
  handledRequests: string[];
  /** Operator requests carried out or refused, newest first (docs/operations.md). */
  requests?: RequestRecord[];
  /** Pod requests not carried out yet, oldest first, and what each waits for (docs/recovery.md). */
  podRequests?: PodRequestWait[];
}

export interface ClusterStatus {
  /** The name in baton.yaml `clusters`. */
  name: string;
  /** The API server the instance's objects and checkpoint are on (recorded once connected; a declaration reaching another is refused). */
  server?: string;
  /** Set while the cluster cannot be used (not reached, credentials refused): since when and why. Cleared by the next status written after it works again. */
  unreachable?: { since: string; code: string; message: string };
}

export interface SuspendedStatus {
  /** When the agent first saw the instance suspended. */
  since: string;
  /** The commit that suspends it (the first the agent saw). */
  commit: string;
}

export interface BuildInput {
  instance: InstanceKey;
  framework: { name: string; version?: string };
  sourceCommit: string;
  observed: Fingerprint;
  now: string;
  checkpoint?: Checkpoint;
  refusal?: RefusalStatus;
  waiting?: WaitingStatus;
  podRequests?: readonly PodRequestWait[];
  parent?: ParentStatus;
  removed?: boolean;
  schedules?: ScheduleStatus[];
  /** Values to mask wherever they would appear (messages can quote them). */
  sensitiveValues?: readonly string[];
  /** The last health and drift the agent measured (kept from the previous status until measured again). */
  health?: HealthSection;
  drift?: DriftSection;
  suspended?: SuspendedStatus;
  cluster?: ClusterStatus;
}

/** Bounds on what one status file carries (the file is rewritten on every transition). */
export const STATUS_MAX_PROBLEMS = 20;
export const STATUS_MAX_MESSAGE = 2000;

function capText(text: string): string {
  return text.length > STATUS_MAX_MESSAGE ? `${text.slice(0, STATUS_MAX_MESSAGE)}... (${text.length - STATUS_MAX_MESSAGE} more characters)` : text;
}

function capRefusal(r: RefusalStatus): RefusalStatus {
  const out: RefusalStatus = { ...r, message: capText(r.message) };
  if (r.problems !== undefined) {
    const more = r.problems.length - STATUS_MAX_PROBLEMS;
    out.problems = [...r.problems.slice(0, STATUS_MAX_PROBLEMS).map(capText), ...(more > 0 ? [`... and ${more} more problems (run baton validate)`] : [])];
  }
  return out;
}

function clusterSection(c: ClusterStatus | undefined): Pick<InstanceStatus, 'cluster'> {
  if (c === undefined) return {};
  return { cluster: { name: c.name, ...(c.server !== undefined ? { server: c.server } : {}), ...(c.unreachable ? { unreachable: { ...c.unreachable, message: capText(c.unreachable.message) } } : {}) } };
}

export function buildStatus(input: BuildInput): InstanceStatus {
  const cp = input.checkpoint;
  const active = cp?.active;
  const found = input.refusal ?? (cp?.refusal ? { code: cp.refusal.code, message: cp.refusal.message, at: cp.refusal.at } : undefined);
  const refusal = found ? capRefusal(found) : undefined;
  const refused = refusal !== undefined && (input.refusal !== undefined || !active);
  const sync = syncOf(cp, { commit: input.sourceCommit, ...(input.framework.version ? { frameworkVersion: input.framework.version } : {}) }, refused, input.suspended);
  const state: InstanceStatus['state'] = input.removed ? 'REMOVED' : refused ? 'REFUSED' : input.suspended ? 'SUSPENDED' : stateOf(active, sync);
  const drift = input.drift ? withRepairs(input.drift, cp) : undefined;
  const status: InstanceStatus = {
    apiVersion: STATUS_API_VERSION,
    kind: 'InstanceStatus',
    instance: { ...input.instance },
    framework: { ...input.framework },
    state,
    sourceCommit: input.sourceCommit,
    updatedAt: input.now,
    observed: { ...input.observed },
    ...(input.parent ? { parent: { ...input.parent } } : {}),
    ...(refusal ? { refusal } : {}),
    ...(input.suspended ? { suspended: { ...input.suspended } } : {}),
    ...(input.waiting ? { waiting: { ...input.waiting, message: capText(input.waiting.message) } } : {}),
    sync,
    ...(input.health ? { health: input.health } : {}),
    ...(drift ? { drift: { ...drift, objects: drift.objects.slice(0, STATUS_MAX_DRIFTED), errors: drift.errors.slice(0, STATUS_MAX_PROBLEMS).map(capText) } } : {}),
    plans: plansOf(cp),
    ...clusterSection(input.cluster),
    ...(active ? { currentPlan: active } : {}),
    recentPlans: (cp?.history ?? []).slice(0, RECENT_PLANS_LIMIT).map((r) => ({ id: r.id, plan: r.plan, reason: r.reason, state: r.state })),
    inventory: (cp?.inventory ?? []).map((e) => refKey(e)).sort(),
    schedules: input.schedules ?? [],
    handledRequests: (cp?.handledRequests ?? []).slice(0, 20),
    ...(cp?.requestLog?.length ? { requests: cp.requestLog.map((r) => ({ ...r, message: capText(r.message) })) } : {}),
    ...(input.podRequests?.length ? { podRequests: input.podRequests.map((w) => ({ ...w })) } : {}),
  };
  return maskText(status, input.sensitiveValues ?? []);
}

/**
 * Masks the text of a status, never its ids: a short sensitive value can occur inside a hex commit or
 * blob id, and a masked fingerprint would never match again (the instance would re-run on every poll).
 */
function maskText(status: InstanceStatus, sensitive: readonly string[]): InstanceStatus {
  const masked = maskSensitive(status, sensitive);
  masked.sourceCommit = status.sourceCommit;
  masked.observed = status.observed;
  masked.instance = status.instance;
  if (masked.refusal && status.refusal?.commit !== undefined) masked.refusal.commit = status.refusal.commit;
  if (masked.currentPlan && status.currentPlan) masked.currentPlan.id = status.currentPlan.id;
  masked.recentPlans.forEach((p, i) => { p.id = status.recentPlans[i]?.id ?? p.id; });
  masked.handledRequests = status.handledRequests;
  masked.requests?.forEach((r, i) => { const raw = status.requests?.[i]; if (raw) { r.id = raw.id; if (raw.runId) r.runId = raw.runId; } });
  if (masked.sync && status.sync) {
    masked.sync.desired = status.sync.desired;
    if (status.sync.lastApplied) masked.sync.lastApplied = status.sync.lastApplied;
    if (masked.sync.failure && status.sync.failure) masked.sync.failure.runId = status.sync.failure.runId;
  }
  if (masked.plans && status.plans) for (const [plan, run] of Object.entries(status.plans)) if (masked.plans[plan]) masked.plans[plan].id = run.id;
  if (masked.drift?.lastRepair && status.drift?.lastRepair) masked.drift.lastRepair.runId = status.drift.lastRepair.runId;
  return masked;
}

function stateWord(state: RunState): InstanceStatus['state'] {
  return state.status === 'NEVER_RUN' ? 'PENDING' : state.status;
}

/**
 * The one word: a running plan's state; otherwise never COMPLETE while the desired state is not
 * applied. A failed desired state stays FATAL_ERROR whatever ran after it (a backup that completed
 * does not hide it), and one not applied yet is PENDING.
 */
function stateOf(active: PlanRun | undefined, sync: SyncStatus): InstanceStatus['state'] {
  if (active !== undefined && !isFinished(active.state) && active.state.status !== 'NEVER_RUN') return stateWord(active.state);
  if (sync.status === 'Failed') return 'FATAL_ERROR';
  if (active === undefined) return 'PENDING';
  if (sync.status === 'OutOfSync' && active.state.status === 'COMPLETE') return 'PENDING';
  return stateWord(active.state);
}

/** Stable YAML (fixed key order, no line folding) so unchanged status yields an identical blob. */
export function formatStatus(status: InstanceStatus): string {
  const header = '# Written by the Baton agent. Do not edit: changes are overwritten on the next transition.\n';
  return header + jsYaml.dump(JSON.parse(JSON.stringify(status)), { schema: jsYaml.CORE_SCHEMA, lineWidth: -1, noRefs: true, sortKeys: false });
}

const statusShape = z.looseObject({
  apiVersion: z.literal(STATUS_API_VERSION),
  kind: z.literal('InstanceStatus'),
  instance: z.object({ namespace: z.string(), name: z.string() }),
  framework: z.looseObject({ name: z.string(), version: z.string().optional() }),
  state: z.string(),
  sourceCommit: z.string(),
  updatedAt: z.string(),
  observed: z.looseObject({ instance: z.string() }),
  recentPlans: z.array(z.unknown()),
  inventory: z.array(z.string()),
  schedules: z.array(z.looseObject({ plan: z.string(), cron: z.string(), timezone: z.string(), lastRun: z.string().optional() })),
  handledRequests: z.array(z.string()),
});

export class StatusFileError extends BatonError {
  constructor(file: string, detail: string) {
    super('STATUS_FILE_INVALID', `${file}: ${detail}`, { file });
  }
}

/** Parses a status file written by (any version of) the agent; a hand-edited broken file is an error naming it. */
export function parseStatus(text: string, file: string): InstanceStatus {
  let doc: unknown;
  try {
    doc = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, filename: file });
  } catch (err) {
    throw new StatusFileError(file, `not valid YAML (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
  }
  const result = statusShape.safeParse(doc);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new StatusFileError(file, `field ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data as unknown as InstanceStatus;
}
