/** The status file tells the truth: sync, health, drift and plans apart; `state` never COMPLETE while the desired state failed. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import type { PlanRun } from '../../src/plans/state.js';
import { SCHEMA_BASE_URL } from '../../src/render/json-schema.js';
import { buildStatus, formatStatus, parseStatus } from '../../src/sync/status-file.js';
import { statusJsonSchema, statusSchema } from '../../src/sync/status-schema.js';
import { healthAfterRepair, type HealthSection } from '../../src/sync/status-sections.js';

const run = (id: string, plan: string, status: 'COMPLETE' | 'FATAL_ERROR' | 'IN_PROGRESS', at: string): PlanRun => ({
  id, plan, reason: plan === 'update' ? 'values changed: REPLICAS' : 'requested (r-1)', args: {}, frameworkVersion: '1.0.0', strategy: 'serial',
  state: status === 'IN_PROGRESS' ? { status, startedAt: at, message: 'running' } : status === 'COMPLETE' ? { status, startedAt: at, finishedAt: at, message: 'plan complete' } : { status, startedAt: at, finishedAt: at, message: 'boom', error: { code: 'KUBE_INVALID', message: 'boom' } },
  phases: [],
});

const values = { REPLICAS: '3' };
/** deploy applied REPLICAS=3; update to REPLICAS=2 failed; a backup completed after it. */
const failedThenBackup: Checkpoint = {
  format: 1, instance: { namespace: 'shop', name: 'db' }, framework: 'pg',
  applied: { frameworkVersion: '1.0.0', frameworkHash: 'h', values, at: '2026-03-01T00:00:00.000Z', plan: 'deploy', runId: 'run-deploy', sourceCommit: 'c1' },
  target: {
    frameworkVersion: '1.0.0', frameworkHash: 'h', values: { REPLICAS: '2' }, plan: 'update', runId: 'run-update', since: '2026-03-01T01:00:00.000Z', sourceCommit: 'c2',
    failure: { attempts: 1, at: '2026-03-01T01:00:05.000Z', runId: 'run-update', code: 'KUBE_INVALID', message: 'StatefulSet shop/db: password hunter2 is bad', phase: 'main', step: 'servers', object: 'StatefulSet shop/db', nextRetryAt: '2026-03-01T01:01:05.000Z' },
  },
  active: run('run-backup', 'backup', 'COMPLETE', '2026-03-01T02:00:00.000Z'),
  history: [run('run-update', 'update', 'FATAL_ERROR', '2026-03-01T01:00:00.000Z'), run('run-deploy', 'deploy', 'COMPLETE', '2026-03-01T00:00:00.000Z')],
  inventory: [], handledRequests: ['r-1'],
};

const build = (checkpoint: Checkpoint) => buildStatus({ instance: { namespace: 'shop', name: 'db' }, framework: { name: 'pg', version: '1.0.0' }, sourceCommit: 'c3', observed: { instance: 'b' }, now: '2026-03-01T02:00:01.000Z', checkpoint, sensitiveValues: ['hunter2'] });

describe('the status file sections', () => {
  it('GIVEN an update that failed and a backup that completed after it THEN state stays FATAL_ERROR and sync says Failed, where, and when it is retried', () => {
    const status = build(failedThenBackup);
    expect(status.state).toBe('FATAL_ERROR');
    expect(status.sync).toEqual({
      status: 'Failed',
      desired: { commit: 'c3', frameworkVersion: '1.0.0' },
      lastApplied: { commit: 'c1', frameworkVersion: '1.0.0', at: '2026-03-01T00:00:00.000Z', plan: 'deploy', runId: 'run-deploy' },
      failure: { plan: 'update', runId: 'run-update', phase: 'main', step: 'servers', code: 'KUBE_INVALID', message: 'StatefulSet shop/db: password *** is bad', object: 'StatefulSet shop/db', attempts: 1, nextRetryAt: '2026-03-01T01:01:05.000Z' },
      message: 'update failed at phase main, step servers (KUBE_INVALID); retry 2 at 2026-03-01T01:01:05.000Z or on the next commit',
    });
    // The last run of each plan, apart.
    expect(Object.fromEntries(Object.entries(status.plans ?? {}).map(([p, r]) => [p, r.state.status]))).toEqual({ backup: 'COMPLETE', deploy: 'COMPLETE', update: 'FATAL_ERROR' });
    expect(status.currentPlan?.plan).toBe('backup');
  });

  it('GIVEN the retried update running THEN sync is Progressing; GIVEN it completed THEN Synced and COMPLETE', () => {
    const retrying: Checkpoint = { ...failedThenBackup, target: { ...failedThenBackup.target!, runId: 'run-retry' }, active: run('run-retry', 'update', 'IN_PROGRESS', '2026-03-01T03:00:00.000Z') };
    expect(build(retrying)).toMatchObject({ state: 'IN_PROGRESS', sync: { status: 'Progressing' } });
    const { failure: _f, ...target } = retrying.target!;
    const done: Checkpoint = { ...retrying, target, applied: { ...target, at: '2026-03-01T03:00:09.000Z', plan: 'update', runId: 'run-retry' }, active: run('run-retry', 'update', 'COMPLETE', '2026-03-01T03:00:00.000Z') };
    expect(build(done)).toMatchObject({ state: 'COMPLETE', sync: { status: 'Synced', lastApplied: { runId: 'run-retry' } } });
  });

  it('writes a file the published schema describes, and reads it back', () => {
    const status = { ...build(failedThenBackup), health: { status: 'Degraded' as const, checkedAt: 'now', objects: [{ object: 'StatefulSet shop/db', status: 'Degraded' as const, message: 'x' }] } };
    const text = formatStatus(status);
    expect(statusSchema.safeParse(parseStatus(text, 'status/shop/db.yaml')).success).toBe(true);
    expect(text).not.toContain('hunter2');
  });

  it('schemas/status.json matches the zod schema (run: npx tsx scripts/gen-schemas.ts)', () => {
    expect(readFileSync(new URL('../../schemas/status.json', import.meta.url), 'utf8')).toBe(statusJsonSchema(SCHEMA_BASE_URL));
  });
});

describe('health after a completed repair', () => {
  const at = '2026-03-01T03:00:00.000Z';
  const health = (objects: HealthSection['objects']): HealthSection => ({ status: 'Missing', checkedAt: at, objects });
  const missing = (object: string): HealthSection['objects'][number] => ({ object, status: 'Missing', message: 'not found' });

  it('the re-applied objects are no longer unhealthy; the instance takes the worst of what remains', () => {
    const before = health([missing('Service shop/web'), { object: 'Deployment shop/web', status: 'Progressing', message: '1/2 ready' }]);
    expect(healthAfterRepair(before, ['Service shop/web missing'])).toEqual({ status: 'Progressing', checkedAt: at, objects: [{ object: 'Deployment shop/web', status: 'Progressing', message: '1/2 ready' }] });
    expect(healthAfterRepair(health([missing('Service shop/web')]), ['Service shop/web missing'])).toEqual({ status: 'Healthy', checkedAt: at, objects: [] });
  });

  it('an object with a similar name is not taken for a repaired one; nothing repaired leaves the section as it was', () => {
    const before = health([missing('Service shop/web-2')]);
    expect(healthAfterRepair(before, ['Service shop/web missing'])).toBe(before);
  });

  it('a list cut at its bound keeps its status when nothing listed remains (unlisted objects may be unhealthy)', () => {
    const listed = Array.from({ length: 20 }, (_, i) => missing(`Service shop/s${i}`));
    const after = healthAfterRepair(health(listed), listed.map((o) => `${o.object} missing`));
    expect(after.status).toBe('Missing');
    expect(after.objects).toEqual([]);
  });
});
