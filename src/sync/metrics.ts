/**
 * Prometheus metrics of the agent (its own registry, so tests and several agents never collide):
 * the agent's own work, and per instance the facts of its status file (info, sync, health, drift) so
 * a dashboard or an alert can say which instance is broken (docs/drift.md has example PromQL).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineEvent } from '../plans/events.js';
import type { InstanceStatus } from './status-file.js';

const SYNC_STATES = ['Synced', 'OutOfSync', 'Progressing', 'Failed', 'Refused'] as const;
const HEALTH_STATES = ['Healthy', 'Progressing', 'Missing', 'Degraded', 'Unknown'] as const;
const INSTANCE_LABELS = ['namespace', 'instance'] as const;

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
  readonly instanceInfo = new Gauge({ name: 'baton_instance_info', help: 'One series per instance with its framework and desired version (value 1)', labelNames: [...INSTANCE_LABELS, 'framework', 'version'] as const, registers: [this.registry] });
  readonly instanceSync = new Gauge({ name: 'baton_instance_sync_status', help: 'Sync state of an instance: 1 for the current status, 0 for the others', labelNames: [...INSTANCE_LABELS, 'status'] as const, registers: [this.registry] });
  readonly instanceHealth = new Gauge({ name: 'baton_instance_health_status', help: 'Health of an instance objects: 1 for the current status, 0 for the others', labelNames: [...INSTANCE_LABELS, 'status'] as const, registers: [this.registry] });
  readonly instanceDrifted = new Gauge({ name: 'baton_instance_drifted_objects', help: 'Objects of an instance that differ from its applied desired state', labelNames: INSTANCE_LABELS, registers: [this.registry] });
  readonly instanceFights = new Gauge({ name: 'baton_instance_drift_fights', help: 'Objects of an instance whose repairs are held back: another field manager keeps changing them', labelNames: INSTANCE_LABELS, registers: [this.registry] });
  readonly instanceRetryAt = new Gauge({ name: 'baton_instance_next_retry_timestamp_seconds', help: 'When a failed desired state is retried next (0 when none failed)', labelNames: INSTANCE_LABELS, registers: [this.registry] });
  readonly planSeconds = new Histogram({
    name: 'baton_plan_duration_seconds',
    help: 'Time of a plan run from start to end, by framework, plan and result (repairs are plan="repair")',
    labelNames: ['framework', 'plan', 'result'] as const,
    buckets: [1, 5, 15, 60, 300, 900, 1800, 3600, 7200],
    registers: [this.registry],
  });
  readonly sweepSeconds = new Histogram({ name: 'baton_drift_sweep_duration_seconds', help: 'Time of one drift sweep', buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [this.registry] });
  readonly sweepRequests = new Gauge({ name: 'baton_drift_sweep_requests', help: 'API requests of the last drift sweep', registers: [this.registry] });
  readonly sweepObjects = new Gauge({ name: 'baton_drift_sweep_objects', help: 'Objects looked at by the last drift sweep', registers: [this.registry] });
  /** Start times of running steps: engine events carry no clock, the agent's own is used. */
  private readonly stepStarts = new Map<string, number>();
  /** Per instance: its labels as last reported, so a change of framework or version replaces the series. */
  private readonly known = new Map<string, { framework: string; version: string }>();
  private readonly frameworks = new Map<string, string>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** Mirrors an instance's status file; `undefined` (removed) drops its series. */
  instance(key: { namespace: string; name: string }, status: InstanceStatus | undefined): void {
    const labels = { namespace: key.namespace, instance: key.name };
    const id = `${key.namespace}/${key.name}`;
    const before = this.known.get(id);
    if (before) this.instanceInfo.remove({ ...labels, ...before });
    if (status === undefined) {
      this.known.delete(id);
      this.frameworks.delete(id);
      for (const s of SYNC_STATES) this.instanceSync.remove({ ...labels, status: s });
      for (const s of HEALTH_STATES) this.instanceHealth.remove({ ...labels, status: s });
      this.instanceDrifted.remove(labels);
      this.instanceFights.remove(labels);
      this.instanceRetryAt.remove(labels);
      return;
    }
    const info = { framework: status.framework.name, version: status.framework.version ?? '' };
    this.known.set(id, info);
    this.instanceInfo.set({ ...labels, ...info }, 1);
    const sync = status.sync?.status ?? (status.state === 'REFUSED' ? 'Refused' : undefined);
    for (const s of SYNC_STATES) this.instanceSync.set({ ...labels, status: s }, s === sync ? 1 : 0);
    const health = status.health?.status ?? 'Unknown';
    for (const s of HEALTH_STATES) this.instanceHealth.set({ ...labels, status: s }, s === health ? 1 : 0);
    this.instanceDrifted.set(labels, status.drift?.objects.length ?? 0);
    this.instanceFights.set(labels, status.drift?.fights.filter((f) => f.backoffUntil !== undefined && Date.parse(f.backoffUntil) > this.nowMs()).length ?? 0);
    const retry = status.sync?.failure?.nextRetryAt;
    this.instanceRetryAt.set(labels, retry ? Date.parse(retry) / 1000 : 0);
  }

  /** Mirrors every instance's status; instances no longer listed lose their series. */
  instances(statuses: readonly InstanceStatus[]): void {
    const listed = new Set(statuses.map((st) => `${st.instance.namespace}/${st.instance.name}`));
    for (const id of [...this.known.keys()]) {
      if (listed.has(id)) continue;
      const [namespace = '', name = ''] = id.split('/');
      this.instance({ namespace, name }, undefined);
    }
    for (const st of statuses) this.instance(st.instance, st.state === 'REMOVED' ? undefined : st);
  }

  /** A finished drift sweep. */
  sweep(seconds: number, requests: number, objects: number): void {
    this.sweepSeconds.observe(seconds);
    this.sweepRequests.set(requests);
    this.sweepObjects.set(objects);
  }

  /** Feeds plan and step durations from the engine's progress events. */
  observe(event: EngineEvent): void {
    if (event.type === 'checkpoint') {
      // The framework of a plan's instance, before its first status exists.
      this.frameworks.set(`${event.instance.namespace}/${event.instance.name}`, event.checkpoint.framework);
      return;
    }
    if (event.type === 'plan-complete' || event.type === 'plan-failed') {
      const s = event.run.state;
      if (s.status !== 'COMPLETE' && s.status !== 'FATAL_ERROR') return;
      const id = `${event.instance.namespace}/${event.instance.name}`;
      const framework = this.frameworks.get(id) ?? this.known.get(id)?.framework ?? 'unknown';
      this.planSeconds.observe({ framework, plan: event.plan, result: event.type === 'plan-complete' ? 'complete' : 'failed' }, Math.max(0, (Date.parse(s.finishedAt) - Date.parse(s.startedAt)) / 1000));
      return;
    }
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
