/** One line of human-readable progress per engine event (`baton apply`, `baton delete`); pure. */
import type { EngineEvent } from './events.js';
import type { ReconcileResult } from './reconcile.js';

export function eventLine(e: EngineEvent): string | undefined {
  switch (e.type) {
    case 'plan-started':
      return `plan ${e.plan} ${e.resumed ? 'resumed' : 'started'} (${e.run.reason})${e.warnings.map((w) => `\n  warning: ${w}`).join('')}`;
    case 'phase-started':
      return `  phase ${e.phase}`;
    case 'step-started':
      return `    step ${e.step}: ${e.attempt > 0 ? `retry ${e.attempt}, ` : ''}${e.objects} object${e.objects === 1 ? '' : 's'}`;
    case 'step-waiting':
      return `      waiting on ${e.object}: ${e.message}`;
    case 'step-error':
      return `    step ${e.step}: ERROR ${e.error.message} (retry in ${(e.retryInMs / 1000).toFixed(1)}s)`;
    case 'step-complete':
      return `    step ${e.step}: COMPLETE (${e.applied} applied${e.deleted > 0 ? `, ${e.deleted} deleted` : ''})`;
    case 'step-failed':
      return `    step ${e.step}: FATAL_ERROR ${e.error.message}`;
    case 'phase-complete':
      return `  phase ${e.phase}: COMPLETE`;
    case 'phase-failed':
      return `  phase ${e.phase}: FATAL_ERROR`;
    case 'plan-complete':
      return `plan ${e.plan}: COMPLETE`;
    case 'plan-failed':
      return `plan ${e.plan}: FATAL_ERROR (${e.error.code}) ${e.error.message}`;
    case 'plan-superseded':
      return `plan ${e.plan}: superseded after the running step's applies`;
    case 'prune':
      return `prune ${e.object}: ${e.result}${e.result === 'deleted' ? '' : ` (${e.message})`}`;
    case 'refused':
      return `refused (${e.refusal.code}): ${e.refusal.message}`;
    case 'plan-waiting':
      return `plan ${e.plan}: WAITING for \`baton plan continue ${e.instance.namespace}/${e.instance.name} --plan ${e.plan}\` ${e.waits.map((w) => (w.phase !== undefined ? `after step ${w.after} of phase ${w.phase}` : `after phase ${w.after}`)).join(' and ')}`;
    case 'request':
      return e.record.result === 'done' ? `${e.record.action}: ${e.record.message}` : `${e.record.action} refused (${e.record.code ?? 'REFUSED'}): ${e.record.message}`;
    case 'checkpoint':
      return undefined;
  }
}

export function resultLine(r: ReconcileResult): string {
  switch (r.kind) {
    case 'ran':
      return `${r.execution.run.plan}: ${r.execution.outcome === 'complete' ? 'COMPLETE' : r.execution.outcome === 'failed' ? 'FATAL_ERROR' : r.execution.outcome === 'waiting' ? 'WAITING for baton plan continue' : 'SUPERSEDED'}`;
    case 'refused':
      return `refused (${r.refusal.code}): ${r.refusal.message}`;
    case 'nothing':
      return `nothing to do: ${r.reason}`;
    case 'removed':
      return r.report.failed.length === 0
        ? `removed: ${r.report.deleted.length} objects deleted`
        : `removal incomplete: ${r.report.failed.map((f) => `${f.object} (${f.message})`).join(', ')}`;
  }
}

/** 0 when the plan completed or nothing had to run; 1 for a failed plan, a refusal or an incomplete removal. */
export function exitCodeOf(r: ReconcileResult): 0 | 1 {
  switch (r.kind) {
    case 'ran':
      return r.execution.outcome === 'failed' ? 1 : 0;
    case 'refused':
      return 1;
    case 'nothing':
      return 0;
    case 'removed':
      return r.report.failed.length === 0 && (r.cleanup === undefined || r.cleanup.outcome === 'complete') ? 0 : 1;
  }
}
