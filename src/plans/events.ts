/**
 * Progress events: how the CLI shows live progress and how the GitOps agent writes status. Every
 * checkpoint write is also an event carrying the whole run, so a subscriber never has to rebuild
 * state from the finer events.
 */
import type { Checkpoint, Refusal, RequestRecord } from './checkpoint.js';
import type { CanaryWait, FailureInfo, PlanRun } from './state.js';
import type { AppliedObject } from './batch.js';
import type { ObjectRef } from '../kube/object.js';

interface Base {
  instance: { name: string; namespace: string };
}
interface InRun extends Base {
  runId: string;
  plan: string;
}
interface InStep extends InRun {
  phase: string;
  step: string;
}

export type EngineEvent =
  | (InRun & { type: 'plan-started'; run: PlanRun; resumed: boolean; warnings: string[] })
  | (InRun & { type: 'phase-started'; phase: string })
  | (InStep & { type: 'step-started'; objects: number; attempt: number })
  | (InStep & { type: 'step-waiting'; object: string; message: string })
  | (InStep & { type: 'step-error'; error: FailureInfo; attempt: number; retryInMs: number })
  | (InStep & { type: 'step-complete'; applied: number; deleted: number; objects: AppliedObject[] })
  /** `object`: the step's object the failure concerns, when there is one. */
  | (InStep & { type: 'step-failed'; error: FailureInfo; object?: ObjectRef })
  | (InRun & { type: 'phase-complete'; phase: string })
  | (InRun & { type: 'phase-failed'; phase: string })
  | (InRun & { type: 'plan-complete'; run: PlanRun })
  | (InRun & { type: 'plan-failed'; run: PlanRun; error: FailureInfo })
  | (InRun & { type: 'plan-superseded'; run: PlanRun })
  /** A canary strategy waits for `baton plan continue` (docs/operations.md). */
  | (InRun & { type: 'plan-waiting'; run: PlanRun; waits: CanaryWait[] })
  /** An operator request was carried out or refused (src/control/). */
  | (Base & { type: 'request'; record: RequestRecord })
  | (Base & { type: 'prune'; object: string; result: 'deleted' | 'skipped' | 'failed'; message: string })
  | (Base & { type: 'refused'; refusal: Refusal })
  | (Base & { type: 'checkpoint'; checkpoint: Checkpoint });

export type EventListener = (event: EngineEvent) => void;

/** Listeners must not break the engine: a throwing listener is isolated. */
export function safeEmitter(listener: EventListener | undefined): EventListener {
  return (event) => {
    try {
      listener?.(event);
    } catch {
      // A subscriber's bug must not fail a plan; the checkpoint remains the source of truth.
    }
  };
}

/**
 * A listener that sees every message of an event masked (errors, waits, prune results, refusals); the
 * checkpoint an event carries is masked by the session that saved it.
 */
export function maskingListener(listener: EventListener | undefined, mask: (text: string) => string): EventListener | undefined {
  if (listener === undefined) return undefined;
  const info = (e: FailureInfo): FailureInfo => ({ ...e, message: mask(e.message) });
  return (event) => {
    switch (event.type) {
      case 'step-waiting':
      case 'prune':
        return listener({ ...event, message: mask(event.message) });
      case 'step-error':
      case 'step-failed':
      case 'plan-failed':
        return listener({ ...event, error: info(event.error) });
      case 'refused':
        return listener({ ...event, refusal: { ...event.refusal, message: mask(event.refusal.message) } });
      case 'request':
        return listener({ ...event, record: { ...event.record, message: mask(event.record.message) } });
      case 'checkpoint':
      case 'plan-started':
      case 'plan-complete':
      case 'plan-superseded':
      case 'plan-waiting':
      case 'phase-started':
      case 'phase-complete':
      case 'phase-failed':
      case 'step-started':
      case 'step-complete':
        // No free text (the runs they carry come from the masked checkpoint).
        return listener(event);
    }
  };
}
