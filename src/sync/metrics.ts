/** Prometheus metrics of the agent (its own registry, so tests and several agents never collide). */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export class AgentMetrics {
  readonly registry = new Registry();
  readonly plans = new Counter({ name: 'baton_plans_total', help: 'Plans finished, by result', labelNames: ['result'] as const, registers: [this.registry] });
  readonly pollSeconds = new Histogram({ name: 'baton_poll_duration_seconds', help: 'Time of one poll of the repository', buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [this.registry] });
  readonly pushRetries = new Counter({ name: 'baton_status_push_retries_total', help: 'Status pushes rejected and retried', registers: [this.registry] });
  readonly queueDepth = new Gauge({ name: 'baton_queue_depth', help: 'Instances waiting for a worker', registers: [this.registry] });
}
