/** The real hooks: readiness gates from src/plans/gates/ and failure classes from src/plans/failure.ts. */
import { classify, retryDecision } from './failure.js';
import { explainWorkload, gateFor } from './gates/index.js';
import type { EngineHooks } from './hooks.js';
import { isRecord, type KubeObject } from '../kube/object.js';

export function defaultHooks(): EngineHooks {
  return {
    gate: gateFor,
    // Only workloads (objects with a pod template) are explained through their pods.
    explain: (obj, verdict, pods, ctx) => (verdict.state === 'done' || !hasPodTemplate(obj) ? verdict : explainWorkload(obj, verdict, pods, ctx).result),
    classify,
    retryDelayMs: (failure, attempt) => {
      const d = retryDecision(failure.class, attempt, failure.retryAfterSeconds !== undefined ? { retryAfterSeconds: failure.retryAfterSeconds } : {});
      return d.retry ? d.delayMs : undefined;
    },
  };
}

function hasPodTemplate(obj: KubeObject): boolean {
  const spec = obj['spec'];
  return isRecord(spec) && isRecord(spec['template']);
}
