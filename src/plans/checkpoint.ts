/**
 * The checkpoint: the engine's memory, kept in the cluster next to the instance. It holds what plan
 * selection needs as "previous applied state" and the progress of the running plan, so a process
 * killed at any moment resumes where it was. Writes use optimistic concurrency (a version token,
 * the ConfigMap's resourceVersion) so two processes can never both advance it.
 */
import { BatonError } from '../errors.js';
import type { InventoryEntry } from './inventory.js';
import type { PreviousState } from './selection.js';
import type { PlanRun } from './state.js';
import type { StoredValues } from './values.js';

export const CHECKPOINT_FORMAT = 1;
export const HISTORY_LIMIT = 20;
export const HANDLED_REQUESTS_LIMIT = 50;
/** Operator requests remembered with their outcome (the status file shows all of them). */
export const REQUEST_LOG_LIMIT = 20;

export interface AppliedState {
  frameworkVersion: string;
  frameworkHash: string;
  /** Sensitive values only as `sha256:<hex>`, never in clear. */
  values: StoredValues;
}

/** The last desired state a change-driven plan completed: what the cluster was fully brought to. */
export interface AppliedRecord extends AppliedState {
  /** When the plan that applied it completed. */
  at?: string;
  plan?: string;
  runId?: string;
  /** The commit the desired state was read at (the agent sets it; `baton apply` has none). */
  sourceCommit?: string;
}

/**
 * The desired state the latest change-driven plan was started for. Selection compares the desired
 * state with this (so a killed run resumes instead of being selected again); it equals `applied`
 * once that plan completes. `failure` is set while its plan has failed: the engine retries it with
 * backoff (docs/engine.md, "Failed desired state").
 */
export interface TargetRecord extends AppliedState {
  plan: string;
  runId: string;
  since: string;
  sourceCommit?: string;
  failure?: TargetFailure;
}

export interface TargetFailure {
  /** Failed runs for this desired state so far. */
  attempts: number;
  at: string;
  runId: string;
  code: string;
  message: string;
  phase?: string;
  step?: string;
  object?: string;
  /** Not retried before this time (exponential backoff), except on a new commit or `baton apply`. */
  nextRetryAt: string;
}

export interface Refusal {
  code: string;
  message: string;
  at: string;
  details: Record<string, unknown>;
}

export interface Checkpoint {
  format: typeof CHECKPOINT_FORMAT;
  instance: { name: string; namespace: string };
  framework: string;
  /**
   * The desired state the latest change-driven plan COMPLETED for (fully applied). A plan that does
   * not apply the desired state (backup, restore, custom plans, a repair, an explicit request that is
   * not the plan the change calls for) never sets it. Checkpoints written before `target` existed
   * recorded here what a plan was started for; `target` falls back to it.
   */
  applied?: AppliedRecord;
  /** The desired state the latest change-driven plan was started for, and its failure (see TargetRecord). */
  target?: TargetRecord;
  /** The running plan, or the last one when none runs. */
  active?: PlanRun;
  /** Earlier finished runs, newest first, bounded by HISTORY_LIMIT. */
  history: PlanRun[];
  inventory: InventoryEntry[];
  /** Ids of one-shot requests already run (bounded), so each runs once. */
  handledRequests: string[];
  /** The last refused change, cleared when a plan starts. */
  refusal?: Refusal;
  /** Drift repairs (src/drift/): the last repair run, and objects another field manager keeps changing back. */
  repair?: RepairRecord;
  /** Pod actions (src/recovery/): restarts, replacements and decommissions, asked for or automatic. */
  pods?: PodActionsRecord;
  /**
   * Operator requests carried out or refused (src/control/), newest first, bounded by REQUEST_LOG_LIMIT:
   * each is recorded in Git once, as the transition `event`.
   */
  requestLog?: RequestRecord[];
  /**
   * A child of an Instance task (src/compose/children/): the parent that created it, which alone runs and
   * removes it until that parent removes it. Absent for an instance with a file, and in a child's
   * checkpoint written before owners were recorded (the first parent that runs it adopts it).
   */
  parent?: ChildParent;
}

/** The parent instance (`<namespace>/<name>`) owning a child, and its Instance task that renders it. */
export interface ChildParent {
  instance: string;
  task: string;
}

/** One operator request and what came of it. */
export interface RequestRecord {
  id: string;
  action: string;
  /** `git`: a request file; `direct`: a command run against the cluster (`baton plan pause --kubeconfig`). */
  via: 'git' | 'direct';
  result: 'done' | 'refused';
  /** The transition it made (`plan-paused`, `step-force-completed`...) or `request-refused`. */
  event: string;
  message: string;
  /** A refusal's stable code (PLAN_NOT_PAUSED, STEP_COMPLETE, REQUEST_CONFLICT...). */
  code?: string;
  at: string;
  by?: string;
  reason?: string;
  plan?: string;
  /** The run it acted on, or the run it started (retry, restart). */
  runId?: string;
  phase?: string;
  step?: string;
  pod?: string;
}

/**
 * The last pod action, a run of a pseudo-plan (`pod-restart`, `pod-replace`, `decommission`; never the
 * active run), and the recent actions per pod, which recovery's limits are counted on.
 */
export interface PodActionsRecord {
  last?: PlanRun;
  /** Newest first: the newest POD_ACTIONS_LIMIT and every one of the last hour (keepRecentPodActions). Recovery plan runs are entries too (`action: plan`). */
  recent: PodActionEntry[];
  /** Claims (by uid) a decommission already handled, so a plan per removed pod runs once. */
  decommissioned?: string[];
}

export interface PodActionEntry {
  pod: string;
  action: 'restart' | 'replace' | 'plan' | 'decommission';
  at: string;
  runId: string;
  /** Who started it: `recovery` (automatic) or the person / request that asked. */
  by: string;
  /** When the pod's not-ready episode began (recovery escalates from restart to replace on it). */
  notReadySince?: string;
}

export const POD_ACTIONS_LIMIT = 50;
const HOUR_MS = 3_600_000;

/**
 * `entries` (newest first) as `pods.recent` keeps them: the newest POD_ACTIONS_LIMIT, and besides them
 * every entry of the hour before the newest one, so that `limits.maxActionsPerHour` (up to 1000) counts
 * every action of the last hour, not the last 50.
 */
export function keepRecentPodActions(entries: readonly PodActionEntry[]): PodActionEntry[] {
  const sorted = [...entries].sort((a, b) => b.at.localeCompare(a.at));
  const newest = sorted[0];
  if (newest === undefined) return [];
  const hourBefore = Date.parse(newest.at) - HOUR_MS;
  return sorted.filter((e, i) => i < POD_ACTIONS_LIMIT || Date.parse(e.at) > hourBefore);
}

export interface RepairRecord {
  /** The last repair, a run of the pseudo-plan `repair` (never the active run: it does not apply the desired state). */
  last?: PlanRun;
  /** What the last repair re-applied and why: `Service shop/web missing`, `Deployment shop/web .spec.replicas`. */
  objects?: string[];
  fights: FightRecord[];
}

/**
 * An object repaired again and again: another controller changes it back. After `repairs` passes a
 * threshold within a window, repairs back off until `backoffUntil` and the fight is reported.
 */
export interface FightRecord {
  object: string;
  fields: string[];
  /** Field managers that owned the drifted fields when they were found (empty when unknown). */
  managers: string[];
  repairs: number;
  firstRepairAt: string;
  lastRepairAt: string;
  backoffUntil?: string;
}

export interface InstanceKey {
  name: string;
  namespace: string;
}

export interface StoredCheckpoint {
  checkpoint: Checkpoint;
  /** Opaque version for optimistic concurrency. */
  version: string;
}

export interface CheckpointStore {
  load(instance: InstanceKey): Promise<StoredCheckpoint | undefined>;
  /** `version` undefined creates; a stale version throws CheckpointConflictError. Returns the new version. */
  save(checkpoint: Checkpoint, version: string | undefined): Promise<string>;
  remove(instance: InstanceKey): Promise<void>;
}

export class CheckpointConflictError extends BatonError {
  constructor(instance: InstanceKey, cause?: unknown) {
    super('CHECKPOINT_CONFLICT', `the checkpoint of ${instance.namespace}/${instance.name} was changed by another process; stopping so only one advances it`, { ...instance }, { cause });
  }
}

export class CheckpointCorruptError extends BatonError {
  constructor(instance: InstanceKey, where: string, detail: string) {
    super('CHECKPOINT_CORRUPT', `the checkpoint of ${instance.namespace}/${instance.name} (${where}) is unreadable: ${detail}`, { ...instance, where });
  }
}

export function emptyCheckpoint(instance: InstanceKey, framework: string): Checkpoint {
  return { format: CHECKPOINT_FORMAT, instance: { ...instance }, framework, history: [], inventory: [], handledRequests: [] };
}

/** What selection compares the desired state with: the state the last change-driven plan was started for. */
export function previousStateOf(cp: Checkpoint | undefined): PreviousState | undefined {
  const base = cp?.target ?? cp?.applied;
  if (cp === undefined || base === undefined) return undefined;
  return { frameworkVersion: base.frameworkVersion, frameworkHash: base.frameworkHash, values: base.values, handledRequests: cp.handledRequests };
}

/** True when the desired state the last change-driven plan started for is fully applied. */
export function targetApplied(cp: Checkpoint | undefined): boolean {
  if (cp?.target === undefined) return cp?.applied !== undefined;
  return cp.target.failure === undefined && cp.applied?.runId === cp.target.runId;
}

/** Moves a finished active run into the bounded history. */
export function archiveActive(cp: Checkpoint): Checkpoint {
  if (cp.active === undefined) return cp;
  const { active, ...rest } = cp;
  return { ...rest, history: [active, ...cp.history].slice(0, HISTORY_LIMIT) };
}

/** An in-memory store, for tests and for dry runs; same semantics as the ConfigMap store. */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly data = new Map<string, { json: string; version: number }>();

  async load(instance: InstanceKey): Promise<StoredCheckpoint | undefined> {
    const hit = this.data.get(keyOf(instance));
    return hit && { checkpoint: JSON.parse(hit.json) as Checkpoint, version: String(hit.version) };
  }

  async save(checkpoint: Checkpoint, version: string | undefined): Promise<string> {
    const key = keyOf(checkpoint.instance);
    const hit = this.data.get(key);
    if ((hit === undefined) !== (version === undefined) || (hit && String(hit.version) !== version)) {
      throw new CheckpointConflictError(checkpoint.instance);
    }
    const next = (hit?.version ?? 0) + 1;
    this.data.set(key, { json: JSON.stringify(checkpoint), version: next });
    return String(next);
  }

  async remove(instance: InstanceKey): Promise<void> {
    this.data.delete(keyOf(instance));
  }
}

const keyOf = (i: InstanceKey): string => `${i.namespace}/${i.name}`;
