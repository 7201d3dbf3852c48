/** Prometheus metrics of the agent (its own registry, so tests and several agents never collide). */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineEvent } from '../plans/events.js';

export class AgentMetrics {
  readonly registry = new Registry();
  readonly plans = new Counter({ name: 'baton_plans_total', help: 'Plans finished, by result', labelNames: ['result'] as const, registers: [this.registry] });
  readonly pollSeconds = new Histogram({ name: 'baton_poll_duration_seconds', help: 'Time of one poll of the repository', buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [this.registry] });
  readonly pushRetries = new Counter({ name: 'baton_status_push_retries_total', help: 'Status pushes rejected and retried', registers: [this.registry] });
  readonly queueDepth = new Gauge({ name: 'baton_queue_depth', help: 'Instances waiting for a worker', registers: [this.registry] });
  readonly stepSeconds = new Histogram({
    name: 'baton_step_duration_seconds',
    help: 'Time from a step starting to it completing or failing, by result (retries included)',
    labelNames: ['result'] as const,
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
    registers: [this.registry],
  });
  /** Start times of running steps: engine events carry no clock, the agent's own is used. */
  private readonly stepStarts = new Map<string, number>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** Feeds step durations from the engine's progress events. */
  observe(event: EngineEvent): void {
    if (event.type !== 'step-started' && event.type !== 'step-complete' && event.type !== 'step-failed') return;
    const key = `${event.runId}/${event.phase}/${event.step}`;
    // A retried step emits step-started again: keep the first start so retries count in its duration.
    if (event.type === 'step-started') {
      if (!this.stepStarts.has(key)) this.stepStarts.set(key, this.nowMs());
      return;
    }
    const started = this.stepStarts.get(key);
    this.stepStarts.delete(key);
    if (started !== undefined) this.stepSeconds.observe({ result: event.type === 'step-complete' ? 'complete' : 'failed' }, (this.nowMs() - started) / 1000);
  }
}
