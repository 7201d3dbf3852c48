/**
 * A step that keeps failing and retrying (an API server answering 503, a quota, a webhook that times
 * out) is logged at warn, so 100 s of retries are not 100 s of silence: the first retry of a step at
 * once, then at most one line per interval for that step, counting the retries in between, so a long
 * retry loop never floods the log. Messages are masked like everything else the agent writes.
 */
import type { EngineEvent } from '../plans/events.js';
import { maskSensitive } from '../render/mask.js';
import type { AgentLog } from './agent.js';

export const RETRY_LOG_INTERVAL_MS = 30_000;

interface StepState {
  loggedAt: number;
  /** Retries not logged since the last line. */
  quiet: number;
}

export class StepRetryLog {
  private readonly steps = new Map<string, StepState>();

  constructor(private readonly log: AgentLog, private readonly options: { intervalMs?: number; now?: () => number } = {}) {}

  /** Engine event listener (with the instance's sensitive values, to mask them). */
  note(event: EngineEvent, sensitiveValues: readonly string[]): void {
    switch (event.type) {
      case 'step-error':
        this.failed(event, sensitiveValues);
        return;
      case 'step-complete':
      case 'step-failed':
        // The step is over: a later failure of it is news again.
        this.steps.delete(stepKey(event));
        return;
      case 'plan-complete':
      case 'plan-failed':
      case 'plan-waiting':
      case 'plan-superseded': {
        const prefix = `${event.instance.namespace}/${event.instance.name}\u0000${event.runId}\u0000`;
        for (const key of this.steps.keys()) if (key.startsWith(prefix)) this.steps.delete(key);
        return;
      }
      case 'checkpoint':
      case 'plan-started':
      case 'phase-started':
      case 'phase-complete':
      case 'phase-failed':
      case 'step-started':
      case 'step-waiting':
      case 'prune':
      case 'request':
      case 'refused':
        return;
    }
  }

  private failed(event: Extract<EngineEvent, { type: 'step-error' }>, sensitiveValues: readonly string[]): void {
    const key = stepKey(event);
    const now = this.options.now?.() ?? Date.now();
    const state = this.steps.get(key);
    if (state !== undefined && now - state.loggedAt < (this.options.intervalMs ?? RETRY_LOG_INTERVAL_MS)) {
      state.quiet++;
      return;
    }
    const more = state !== undefined && state.quiet > 0 ? ` (${state.quiet} more ${state.quiet === 1 ? 'retry' : 'retries'} since the last warning)` : '';
    this.steps.set(key, { loggedAt: now, quiet: 0 });
    const who = `${event.instance.namespace}/${event.instance.name}`;
    const message = maskSensitive(event.error.message, sensitiveValues);
    const nextRetry = new Date(now + event.retryInMs).toISOString();
    this.log('warn', `${who}: ${event.plan} step ${event.phase}/${event.step} failed (attempt ${event.attempt}): ${message}; retrying in ${formatDelay(event.retryInMs)}${more}`, {
      instance: who, plan: event.plan, phase: event.phase, step: event.step, attempt: event.attempt, code: event.error.code, nextRetry,
    });
  }
}

function stepKey(e: { instance: { namespace: string; name: string }; runId: string; phase: string; step: string }): string {
  return `${e.instance.namespace}/${e.instance.name}\u0000${e.runId}\u0000${e.phase}\u0000${e.step}`;
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
