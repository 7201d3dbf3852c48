/** Step retries logged at warn, rate-limited per step (src/sync/retry-log.ts). */
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/plans/events.js';
import { StepRetryLog } from '../../src/sync/retry-log.js';

const base = { instance: { namespace: 'shop', name: 'site' }, runId: 'r1', plan: 'deploy', phase: 'main', step: 'apply' };
const failure = (attempt: number, message = 'the server is unavailable'): EngineEvent => ({ ...base, type: 'step-error', attempt, retryInMs: 2000, error: { code: 'KUBE_SERVICEUNAVAILABLE', message } });

describe('the step retry log', () => {
  it('GIVEN a step retrying for minutes WHEN logged THEN one warning per interval, counting the retries between', () => {
    let now = 0;
    const lines: string[] = [];
    const log = new StepRetryLog((level, message) => lines.push(`${level} ${message}`), { intervalMs: 30_000, now: () => now });
    for (let attempt = 1; attempt <= 40; attempt++) {
      log.note(failure(attempt), []);
      now += 2000;
    }
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('warn shop/site: deploy step main/apply failed (attempt 1): the server is unavailable; retrying in 2 s');
    expect(lines[1]).toMatch(/\(attempt 16\).*\(14 more retries since the last warning\)$/);
  });

  it('GIVEN a step that recovered WHEN it fails again later THEN that is logged at once; sensitive values are masked', () => {
    const lines: string[] = [];
    const log = new StepRetryLog((_level, message) => lines.push(message), { now: () => 0 });
    log.note(failure(1), []);
    log.note({ ...base, type: 'step-complete', applied: 1, deleted: 0, objects: [] }, []);
    log.note(failure(1, 'rejected value hunter2-secret'), ['hunter2-secret']);
    expect(lines).toHaveLength(2);
    expect(lines[1]).not.toContain('hunter2-secret');
  });
});
