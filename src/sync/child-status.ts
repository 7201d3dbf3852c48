/**
 * Children of Instance tasks in the agent: each child gets its own status file
 * (`status/<namespace>/<child>.yaml`, with `parent:`) and its plan transitions in the history, written
 * by a StatusReporter fed with the child's engine events while the parent's step runs it, exactly as
 * for an instance with a file. The child has no instance file: the agent never removes it for that
 * (see agent.ts); its status goes when the parent's removal removes it. In a shard set the child's record
 * goes with its parent's (child-records.ts): `childRecord` reads it when the parent's worker meets it.
 */
import type { ChildIdentity, ChildObserver, ObserveChild } from '../compose/children/runner.js';
import type { ReconcileResult } from '../plans/reconcile.js';
import type { InstanceRunDeps } from './instance-run.js';
import { StatusReporter } from './status-reporter.js';
import type { InstanceKey } from './status-file.js';

export function childStatusObserver(deps: InstanceRunDeps, commit: string): ObserveChild {
  return async (child: ChildIdentity): Promise<ChildObserver> => {
    const previous = deps.childRecord ? await deps.childRecord(child.key, child.parent) : deps.records.get(child.key);
    const reporter = new StatusReporter(
      deps.writer,
      {
        key: child.key,
        framework: { ...child.framework },
        sourceCommit: commit,
        observed: previous?.observed ?? { instance: '' },
        sensitiveValues: child.sensitiveValues,
        schedules: [],
        now: deps.now,
        parent: { instance: `${child.parent.namespace}/${child.parent.name}`, task: child.task },
      },
      undefined,
      deps.records,
    );
    return {
      onEvent: (e) => {
        reporter.onEvent(e);
        deps.onEngineEvent?.(e);
      },
      done: (result) => finish(deps, reporter, child.key, result, previous === undefined || previous.refusal !== undefined),
    };
  };
}

/** The child's final transitions, as `reportResult` writes an instance's. */
async function finish(deps: InstanceRunDeps, reporter: StatusReporter, key: InstanceKey, result: ReconcileResult, unrecorded: boolean): Promise<void> {
  switch (result.kind) {
    case 'ran':
      // The completion waits for pruning: the stored checkpoint carries the final inventory.
      if (result.execution.outcome === 'complete') reporter.checkpoint = (await deps.checkpoints.load(key))?.checkpoint ?? reporter.checkpoint;
      reporter.recordTransitions();
      return;
    case 'refused':
      reporter.write({ ...reporter.transition('refused', 'REFUSED'), message: result.refusal.message }, { refusal: { code: result.refusal.code, message: result.refusal.message, at: result.refusal.at } });
      return;
    case 'nothing':
      // What the checkpoint has and Git does not (the run's owner was lost, or killed, before it pushed):
      // recorded now, once, as for an instance (reportSettledRun).
      reporter.checkpoint = (await deps.checkpoints.load(key))?.checkpoint ?? reporter.checkpoint;
      // Up to date: recorded once, for a child whose status is not in Git yet (or says it was refused).
      if (unrecorded) reporter.write({ ...reporter.transition('observed', reporter.checkpoint?.active?.state.status ?? 'COMPLETE', reporter.checkpoint?.active), message: result.reason });
      else reporter.recordTransitions();
      return;
    case 'removed': {
      const failed = result.report.failed.length > 0 || (result.cleanup !== undefined && result.cleanup.outcome !== 'complete');
      if (failed) reporter.write({ ...reporter.transition('plan-failed', 'FATAL_ERROR'), message: `removal incomplete: ${result.report.failed.map((f) => f.object).join(', ') || 'cleanup plan did not complete'}` });
      else reporter.write(reporter.transition('removed', 'REMOVED'), { removed: true });
      return;
    }
  }
}
