/**
 * Readiness gates: one small pure function per kind, deciding from an object's observed state whether
 * it is ready (done), not yet (waiting, with a message that counts progress) or will never be (failed).
 * The engine calls `gateFor` and never switches on kind itself.
 */
import type { KubeObject } from '../../kube/object.js';
import type { ReadinessRule } from '../../render/types.js';

export type GateResult =
  | { state: 'done'; message: string }
  /** `message` counts progress where it can: "2/3 replicas ready". */
  | { state: 'waiting'; message: string }
  /** Terminal: `reason` is stable CamelCase (JobFailed, ImagePullBackOff, ProgressDeadlineExceeded...). */
  | { state: 'failed'; message: string; reason: string };

export interface GateContext {
  /** Framework-declared rules; they take precedence over the built-in ones. */
  rules: ReadinessRule[];
  now: Date;
  /** How long ErrImagePull/ImagePullBackOff may last before a pod counts as failed. */
  imagePullGraceSeconds: number;
  /** Every object of the batch being gated, e.g. to find the consumer of a WaitForFirstConsumer claim. */
  batch: KubeObject[];
}

export type Gate = (obj: KubeObject, ctx: GateContext) => GateResult;

export const done = (message: string): GateResult => ({ state: 'done', message });
export const waiting = (message: string): GateResult => ({ state: 'waiting', message });
export const failed = (reason: string, message: string): GateResult => ({ state: 'failed', reason, message });
