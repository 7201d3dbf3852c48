/**
 * The value rendering produces and the plan engine executes: plan -> phases -> steps -> one ordered
 * batch of actions per step. `baton render` prints exactly this; nothing here does I/O.
 */
import type { KubeObject } from '../kube/object.js';

/** Canary strategies (DC/OS): the first item runs, then the plan waits for `baton plan continue`; the second runs and waits again; then the rest, serial or parallel. */
export type Strategy = 'serial' | 'parallel' | 'serial-canary' | 'parallel-canary';

/** One object of a step's batch. Toggle tasks render to `apply` or `delete` depending on their parameter. */
export type BatchAction =
  /**
   * `force`: the task says `force: true`; `noForce`: the task says `force: false` (conflicts fail the
   * step). Neither: the default, Git wins (see plans/ownership.ts).
   */
  | { action: 'apply'; object: KubeObject; task: string; template: string; force: boolean; noForce?: true }
  | { action: 'delete'; object: KubeObject; task: string; template: string };

export interface RenderedStep {
  name: string;
  /** Step timeout in seconds (framework default 600). */
  timeoutSeconds: number;
  /** Ordered: Namespaces and CRDs first, then by kind as Helm/kapp order them, then by name. */
  actions: BatchAction[];
}

export interface RenderedPhase {
  name: string;
  strategy: Strategy;
  steps: RenderedStep[];
}

/**
 * How to decide readiness of a kind Baton has no built-in rule for, declared by a framework in
 * framework.yaml `readiness:`. Conditions are matched with status "True".
 */
export interface ReadinessRule {
  apiVersion: string;
  kind: string;
  /** Condition type meaning ready, e.g. `Ready`. */
  readyCondition?: string;
  /** Condition types meaning terminal failure, e.g. `Failed`, `Stalled`. */
  failedConditions?: string[];
  /** Alternatively a field and the values that mean ready / failed, e.g. `status.phase`. */
  field?: { path: string; ready: (string | number | boolean)[]; failed?: (string | number | boolean)[] };
}

export interface RenderedPlan {
  instance: { name: string; namespace: string };
  framework: { name: string; version: string; appVersion: string };
  plan: string;
  strategy: Strategy;
  phases: RenderedPhase[];
  readiness: ReadinessRule[];
  /** Names of sensitive parameters; their values are masked wherever output is shown to people. */
  sensitiveParams: string[];
}
