import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/plans/events.js';
import { AgentMetrics } from '../../src/sync/metrics.js';

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
