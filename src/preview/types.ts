/**
 * What `baton preview` reports: for each instance a change affects, the plan that will run (or why the
 * change is refused), the rendered difference per phase and step, what would be pruned, and schedule
 * changes. A value, so the Markdown, JSON and text outputs are three views of one thing.
 */
import type { ObjectRef } from '../kube/object.js';
import type { ClusterTarget } from '../clusters/describe.js';

export type { ClusterTarget };

export type ObjectChange =
  | { change: 'create'; ref: ObjectRef; yaml: string }
  | { change: 'update'; ref: ObjectRef; diff: string }
  | { change: 'unchanged'; ref: ObjectRef }
  /** A Delete task (or a Toggle turned off) removes the object in this step. */
  | { change: 'delete'; ref: ObjectRef };

export interface StepPreview {
  phase: string;
  step: string;
  changes: ObjectChange[];
  /** Child instances the step's Instance tasks create or update (each runs its own plans then). */
  children?: ChildPreview[];
}

export interface ChildPreview {
  /** `<namespace>/<name>` */
  instance: string;
  task: string;
  framework: string;
  /** The task's version range. */
  version: string;
}

export interface ScheduleChange {
  change: 'added' | 'removed' | 'changed';
  plan: string;
  cron: string;
  timezone: string;
  previousCron?: string;
  /** ISO times of the next runs (empty when removed). */
  nextRuns: string[];
}

export interface InstanceId {
  namespace: string;
  name: string;
}

/** A difference against the live cluster, from a server-side dry-run apply. */
export type LiveChange =
  | { change: 'create'; ref: ObjectRef }
  | { change: 'update'; ref: ObjectRef; diff: string }
  | { change: 'unchanged'; ref: ObjectRef }
  | { change: 'error'; ref: ObjectRef; message: string };

export interface ScaleDownPreview {
  statefulSet: string;
  pods: string[];
  claims: string[];
  /** `delete`: the claims are deleted once the scale-down completed; `keep`: they stay (the default). */
  volumes: 'keep' | 'delete';
  /** A plan run once per removed pod first (`decommission.plan`). */
  plan?: string;
}

/** What happens to one instance, without where. */
export type InstanceOutcome =
  | {
      outcome: 'run';
      instance: InstanceId;
      plan: string;
      /** Why this plan: "new instance", "REPLICAS changed (trigger: update)", ... */
      reasons: string[];
      warnings: string[];
      /** Where the plan waits for `baton plan continue` (canary strategies), and the command, in words. */
      waits?: string[];
      steps: StepPreview[];
      pruned: ObjectRef[];
      schedules: ScheduleChange[];
      live?: LiveChange[];
      /** StatefulSets scaled down, and what the framework's `decommission:` does with the removed replicas (docs/recovery.md). */
      scaleDowns?: ScaleDownPreview[];
    }
  | { outcome: 'remove'; instance: InstanceId; cleanupPlan: string | null; steps: StepPreview[]; pruned: ObjectRef[] }
  | { outcome: 'refused'; instance: InstanceId; code: string; message: string; details: string[] }
  /** Only schedules (or nothing that runs a plan) changed. */
  | { outcome: 'no-plan'; instance: InstanceId; reasons: string[]; schedules: ScheduleChange[] };

/**
 * One instance the change affects and the cluster it targets at the head (at the base for a removal):
 * its baton.yaml name (absent: the agent's own cluster), context, kubeconfig source and, when known
 * without contacting it, server. `clusterFrom`: the base named another cluster (refused, CLUSTER_MOVE).
 */
export type InstancePreview = InstanceOutcome & {
  cluster: ClusterTarget;
  clusterFrom?: ClusterTarget;
  /** Its cluster's baton.yaml declaration changes: the target before, and whether the API server is the same (refused when not, CLUSTER_SERVER_CHANGED). */
  clusterRedeclared?: { from: ClusterTarget; server: 'same' | 'changed' | 'unknown' };
};

export interface FrameworkPreview {
  name: string;
  version: string;
  change: 'added' | 'changed' | 'removed';
  /** Instances on this version now (a changed published version re-runs their update plan). */
  instancesUsing: string[];
  /** Instances of the same framework on other versions: affected once they move to this one. */
  instancesThatCouldMove: string[];
}

export interface PreviewProblem {
  code: string;
  file: string;
  line?: number;
  message: string;
}

export interface PreviewReport {
  base: string;
  head: string;
  instances: InstancePreview[];
  frameworks: FrameworkPreview[];
  problems: PreviewProblem[];
  /** When an affected instance has `dependsOn`: the order the agent runs them in and what each waits for. */
  order?: { instance: string; waitsFor: string[] }[];
  /** False when any instance would be refused or any file is invalid (exit code 1). */
  acceptable: boolean;
}
