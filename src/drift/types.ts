/**
 * The values drift detection produces: per instance, the objects that differ from the desired state
 * the instance was last brought to, the live health of its objects, and located errors for what
 * could not be checked. Plain JSON, so they go into status files and metrics as they are.
 */
import type { ObjectRef } from '../kube/object.js';

/** What the agent does about drift: repair it (default), only report it, or not look at all. */
export type SelfHealPolicy = 'repair' | 'report' | 'ignore';

export const SELF_HEAL_POLICIES: readonly SelfHealPolicy[] = ['repair', 'report', 'ignore'];

/** Why an object counts as drifted. */
export type DriftReason =
  /** Not in the cluster: deleted out of band (alone, or with its namespace). */
  | { kind: 'missing' }
  /** Being deleted by someone else (`metadata.deletionTimestamp` set, Baton did not delete it). */
  | { kind: 'deleting'; since: string }
  /**
   * Fields the framework renders have other values. `managers`: the field managers that own them
   * now, when the API server said (a conflict); empty when a field was removed or changed by Baton's
   * own manager name.
   */
  | { kind: 'changed'; fields: string[]; managers: string[] };

export interface DriftedObject {
  ref: ObjectRef;
  /** `Kind namespace/name`. */
  object: string;
  reason: DriftReason;
  /**
   * `repair`: the self-heal policy may re-apply it. `report`: never repaired automatically (the object
   * is annotated `baton.dev/conflicts: Report` or `Fail`: it does not take fields from others).
   */
  action: 'repair' | 'report';
}

export type HealthStatus = 'Healthy' | 'Progressing' | 'Missing' | 'Degraded' | 'Unknown';

/** Worst last: an instance's health is the worst of its objects'. (The order Argo CD uses.) */
export const HEALTH_ORDER: readonly HealthStatus[] = ['Healthy', 'Progressing', 'Missing', 'Degraded', 'Unknown'];

export interface ObjectHealth {
  object: string;
  status: Exclude<HealthStatus, 'Healthy'>;
  message: string;
}

export interface HealthReport {
  status: HealthStatus;
  /** Objects that are not healthy (bounded by the status file). */
  objects: ObjectHealth[];
  /** Objects looked at. */
  checked: number;
}

/** Why drift was not measured for an instance this time. */
export type NotChecked =
  | { kind: 'not-applied'; message: string }
  | { kind: 'busy'; message: string }
  | { kind: 'ignored'; message: string };

export interface InstanceDrift {
  instance: { namespace: string; name: string };
  checkedAt: string;
  /** Present when drift was not measured (the desired state is not applied yet, policy `ignore`...). */
  notChecked?: NotChecked;
  objects: DriftedObject[];
  /**
   * Located messages for what could not be checked, e.g.
   * `Widget shop/w1 (example.com/v1): the cluster no longer serves this kind (CRD deleted?)`.
   */
  errors: string[];
  health: HealthReport;
  /** The checkpoint ConfigMap itself is gone (e.g. the namespace was deleted): only a full plan can restore it. */
  checkpointMissing?: boolean;
}

export interface SweepStats {
  /** API requests the sweep made (lists, pages, confirming dry-runs and gets). */
  requests: number;
  lists: number;
  dryRuns: number;
  gets: number;
  objects: number;
  candidates: number;
  /** Objects the lists returned (every instance's, cluster-wide lists return them all). */
  listed: number;
  /**
   * Of those, the objects the sweep kept to compare: only the swept instances' checkpoints and
   * inventory entries (a sweep of a few instances in a cluster of thousands holds a few objects,
   * not every managed object of the kinds it lists).
   */
  kept: number;
  /** Sweeps this report merges: a check of more instances than a slice (keeper.ts DRIFT_SWEEP_SLICE) runs one per slice. */
  sweeps: number;
}

export interface SweepReport {
  at: string;
  instances: InstanceDrift[];
  stats: SweepStats;
  /**
   * The swept instances' checkpoints as the sweep listed them, by `namespace/name`, for whoever records
   * the result right after (no second read per instance, issue #20). Only in a report of one slice (so
   * at most a slice's worth is held); the keeper does not keep them.
   */
  checkpoints?: ReadonlyMap<string, import('../plans/checkpoint.js').Checkpoint>;
}

/** One object an instance's lifecycle plans render now, with the step that owns it. */
export interface DesiredObject {
  object: import('../kube/object.js').KubeObject;
  plan: string;
  phase: string;
  step: string;
  /** The owning step's timeout, for the readiness wait of a repair. */
  timeoutSeconds: number;
  force: boolean;
  noForce?: true;
}
