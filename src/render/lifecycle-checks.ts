/**
 * Checks of framework.yaml `recovery:` and `decommission:` beyond their schema (docs/recovery.md):
 * plans they name exist, timeouts that make sense together. Located like every framework problem.
 */
import type { Framework } from './model.js';
import { problem, type Problem } from './problems.js';
import type { SourceFile, YamlPath } from './source.js';
import { parseDuration } from './versions.js';

/** The plan `permanent: plan` runs when `plan` is not given. */
export const DEFAULT_RECOVERY_PLAN = 'recovery';

function at(src: SourceFile, path: YamlPath): Pick<Problem, 'file' | 'path' | 'line' | 'column'> {
  return { file: src.file, path, ...src.locate(path, false) };
}

export function lifecycleProblems(fw: Framework): Problem[] {
  const out: Problem[] = [];
  const src = fw.frameworkSource;
  const plans = fw.decl.plans;
  const recovery = fw.decl.recovery;
  if (recovery !== undefined) {
    const transient = recovery.transientTimeout === undefined ? undefined : parseDuration(recovery.transientTimeout);
    const permanent = recovery.permanentTimeout === undefined ? undefined : parseDuration(recovery.permanentTimeout);
    if (transient === 0) out.push(problem({ code: 'RECOVERY_TIMEOUT_INVALID', ...at(src, ['recovery', 'transientTimeout']), message: 'recovery.transientTimeout must be longer than 0s' }));
    if (permanent === 0) out.push(problem({ code: 'RECOVERY_TIMEOUT_INVALID', ...at(src, ['recovery', 'permanentTimeout']), message: 'recovery.permanentTimeout must be longer than 0s' }));
    if (transient !== undefined && permanent !== undefined && permanent <= transient) {
      out.push(problem({ code: 'RECOVERY_TIMEOUT_INVALID', ...at(src, ['recovery', 'permanentTimeout']), message: `recovery.permanentTimeout (${recovery.permanentTimeout ?? ''}) must be longer than transientTimeout (${recovery.transientTimeout ?? ''}): a pod is restarted first, replaced later` }));
    }
    if (recovery.permanent === 'plan') {
      const name = recovery.plan ?? DEFAULT_RECOVERY_PLAN;
      if (!plans[name]) out.push(problem({ code: 'RECOVERY_PLAN_UNKNOWN', ...at(src, recovery.plan !== undefined ? ['recovery', 'plan'] : ['recovery', 'permanent']), message: `recovery.permanent is "plan" and names plan "${name}", which framework.yaml does not define under plans` }));
      if (permanent === undefined) out.push(problem({ code: 'RECOVERY_TIMEOUT_INVALID', ...at(src, ['recovery', 'permanent']), message: 'recovery.permanent: plan needs recovery.permanentTimeout (when the plan runs)' }));
    } else if (recovery.plan !== undefined) {
      out.push(problem({ code: 'RECOVERY_PLAN_UNUSED', ...at(src, ['recovery', 'plan']), message: 'recovery.plan is only used with permanent: plan (permanent is "replace")' }));
    }
    const interval = recovery.limits?.podInterval;
    if (interval !== undefined && parseDuration(interval) === 0) out.push(problem({ code: 'RECOVERY_LIMIT_INVALID', ...at(src, ['recovery', 'limits', 'podInterval']), message: 'recovery.limits.podInterval must be longer than 0s' }));
  }
  const decommission = fw.decl.decommission;
  if (decommission?.plan !== undefined && !plans[decommission.plan]) {
    out.push(problem({ code: 'DECOMMISSION_PLAN_UNKNOWN', ...at(src, ['decommission', 'plan']), message: `decommission.plan names plan "${decommission.plan}", which framework.yaml does not define under plans` }));
  }
  return out;
}
