import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/plans/events.js';
import type { PlanRun } from '../../src/plans/state.js';
import { AgentMetrics } from '../../src/sync/metrics.js';
import type { InstanceStatus } from '../../src/sync/status-file.js';

const at = { instance: { name: 'web', namespace: 'shop' }, runId: 'r1', plan: 'deploy', phase: 'main', step: 'app' };
const started = (attempt = 1): EngineEvent => ({ ...at, type: 'step-started', objects: 2, attempt });

async function histogram(metrics: AgentMetrics): Promise<string> {
  return (await metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('baton_step_duration_seconds_')).join('\n');
}

describe('the step-duration metric', () => {
  it('measures from the first start to completion, counting retries in the duration', async () => {
    let now = 0;
    const metrics = new AgentMetrics(() => now);
    metrics.observe(started());
    now = 1_000;
    metrics.observe(started(2)); // a retry after a transient error
    now = 3_000;
    metrics.observe({ ...at, type: 'step-complete', applied: 2, deleted: 0, objects: [] });
    const text = await histogram(metrics);
    expect(text).toContain('baton_step_duration_seconds_sum{result="complete"} 3');
    expect(text).toContain('baton_step_duration_seconds_count{result="complete"} 1');
  });

  it('labels failed steps, and ignores ends without a start and other events', async () => {
    let now = 0;
    const metrics = new AgentMetrics(() => now);
    metrics.observe({ ...at, type: 'step-complete', applied: 0, deleted: 0, objects: [] });
    metrics.observe({ ...at, type: 'phase-started' });
    metrics.observe(started());
    now = 500;
    metrics.observe({ ...at, type: 'step-failed', error: { class: 'terminal', code: 'STEP_TIMEOUT', message: 'timed out' } } as EngineEvent);
    const text = await histogram(metrics);
    expect(text).toContain('baton_step_duration_seconds_count{result="failed"} 1');
    expect(text).toContain('baton_step_duration_seconds_sum{result="failed"} 0.5');
    expect(text).not.toContain('result="complete"');
  });
});

describe('per-instance metrics', () => {
  const key = { namespace: 'shop', name: 'db' };
  const status = (over: Partial<InstanceStatus> = {}): InstanceStatus => ({
    apiVersion: 'baton.dev/v1alpha1', kind: 'InstanceStatus', instance: key, framework: { name: 'postgresql', version: '1.2.0' }, state: 'FATAL_ERROR',
    sourceCommit: 'c', updatedAt: 'now', observed: { instance: 'b' }, recentPlans: [], inventory: [], schedules: [], handledRequests: [],
    sync: { status: 'Failed', desired: { commit: 'c' }, message: 'update failed', failure: { plan: 'update', runId: 'r', code: 'X', message: 'm', attempts: 2, nextRetryAt: '2026-03-01T00:10:00.000Z' } },
    health: { status: 'Degraded', checkedAt: 'now', objects: [] },
    drift: { status: 'Drifted', policy: 'repair', checkedAt: 'now', objects: [{ object: 'Service shop/db', reason: 'missing', action: 'repair' }, { object: 'PodDisruptionBudget shop/db', reason: 'missing', action: 'repair' }], fights: [], errors: [] },
    ...over,
  });
  const lines = async (m: AgentMetrics, prefix: string): Promise<string[]> => (await m.registry.metrics()).split('\n').filter((l) => l.startsWith(prefix));

  it('GIVEN an instance status WHEN mirrored THEN info, sync, health, drifted objects and the next retry are series labelled by instance', async () => {
    const m = new AgentMetrics(() => Date.parse('2026-03-01T00:00:00Z'));
    m.instance(key, status());
    expect(await lines(m, 'baton_instance_info')).toEqual(['baton_instance_info{namespace="shop",instance="db",framework="postgresql",version="1.2.0"} 1']);
    expect(await lines(m, 'baton_instance_sync_status{')).toContain('baton_instance_sync_status{namespace="shop",instance="db",status="Failed"} 1');
    expect(await lines(m, 'baton_instance_sync_status{')).toContain('baton_instance_sync_status{namespace="shop",instance="db",status="Synced"} 0');
    expect(await lines(m, 'baton_instance_health_status{')).toContain('baton_instance_health_status{namespace="shop",instance="db",status="Degraded"} 1');
    expect(await lines(m, 'baton_instance_drifted_objects{')).toEqual(['baton_instance_drifted_objects{namespace="shop",instance="db"} 2']);
    expect(await lines(m, 'baton_instance_next_retry_timestamp_seconds{')).toEqual([`baton_instance_next_retry_timestamp_seconds{namespace="shop",instance="db"} ${Date.parse('2026-03-01T00:10:00Z') / 1000}`]);
    // A new version replaces the info series; a removed instance has no series left.
    m.instance(key, status({ framework: { name: 'postgresql', version: '1.3.0' } }));
    expect(await lines(m, 'baton_instance_info')).toEqual(['baton_instance_info{namespace="shop",instance="db",framework="postgresql",version="1.3.0"} 1']);
    m.instance(key, undefined);
    expect((await m.registry.metrics()).split('\n').filter((l) => l.includes('instance="db"'))).toEqual([]);
  });

  it('measures plan durations per framework and plan, repairs included', async () => {
    const m = new AgentMetrics();
    const run = (plan: string, status: 'COMPLETE' | 'FATAL_ERROR'): PlanRun => ({ id: 'r', plan, reason: '', args: {}, frameworkVersion: '1', strategy: 'serial', phases: [], state: status === 'COMPLETE' ? { status, startedAt: '2026-03-01T00:00:00Z', finishedAt: '2026-03-01T00:00:42Z', message: '' } : { status, startedAt: '2026-03-01T00:00:00Z', finishedAt: '2026-03-01T00:00:02Z', message: '', error: { code: 'X', message: 'x' } } });
    m.observe({ type: 'checkpoint', instance: key, checkpoint: { format: 1, instance: key, framework: 'postgresql', history: [], inventory: [], handledRequests: [] } });
    m.observe({ type: 'plan-complete', instance: key, runId: 'r', plan: 'backup', run: run('backup', 'COMPLETE') });
    m.observe({ type: 'plan-failed', instance: key, runId: 'r', plan: 'repair', run: run('repair', 'FATAL_ERROR'), error: { code: 'X', message: 'x' } });
    expect(await lines(m, 'baton_plan_duration_seconds_sum')).toEqual([
      'baton_plan_duration_seconds_sum{framework="postgresql",plan="backup",result="complete"} 42',
      'baton_plan_duration_seconds_sum{framework="postgresql",plan="repair",result="failed"} 2',
    ]);
  });
});
