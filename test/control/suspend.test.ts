/**
 * Issue #13, suspend (`suspend: true` in the instance file): `baton apply` applies nothing and says
 * why; the agent holds schedules while suspended (a cron slot due meanwhile does not run) and runs them
 * by their rules once unsuspended (a slot missed while suspended runs once, then the next from now, as
 * after an agent's downtime); status says suspended and since when, in Git and in `baton plan status`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { Agent } from '../../src/sync/agent.js';
import type { InstanceStatus } from '../../src/sync/status-file.js';
import { startAgentHarness, type AgentHarness, type CliRun } from '../helpers/agent-harness.js';
import { API, type AgentWorld } from '../sync/fixtures.js';

const db = { namespace: 'data', name: 'db' };
const dbFile = 'instances/data/db.yaml';
const dbInstance = (suspend: boolean): string => [
  API, 'kind: Instance', 'framework: web', 'version: 1.0.0', ...(suspend ? ['suspend: true'] : []),
  'schedules:', '  - { plan: backup, cron: "0 3 * * *", timezone: UTC, args: { LABEL: nightly } }', '',
].join('\n');

describe('suspend', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let agent: Agent;
  let clock = new Date('2026-03-01T01:00:00Z');
  const run = (...args: string[]): Promise<CliRun> => h.baton(args, world.user.dir);
  const commit = async (text: string, message: string): Promise<void> => { await h.push({ [dbFile]: text }, message); };
  const statusInGit = (): Promise<InstanceStatus> => h.statusInGit(db);
  const backupRuns = async (): Promise<number> => {
    const cp = await h.checkpointOf(db);
    return [cp?.active, ...(cp?.history ?? [])].filter((r) => r?.plan === 'backup').length;
  };

  beforeAll(async () => {
    // The agent runs on the test's clock; it acts only when a test calls pass().
    h = await startAgentHarness({ agent: { now: () => clock } });
    ({ world, client, agent } = h);
  });
  afterAll(() => h.stop());

  it('GIVEN a suspended instance file WHEN baton apply runs THEN it exits 1 naming the file and the field, and nothing is applied', async () => {
    world.user.write(dbFile, dbInstance(true));
    const io = await run('apply', dbFile, '--kubeconfig', world.cluster.kubeconfigPath);
    expect(io.code).toBe(1);
    expect(io.err).toContain(`${dbFile}: suspend: true: data/db is suspended, nothing is applied`);
    expect(await h.checkpointOf(db)).toBeUndefined();
    expect(await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'data', name: 'db' })).toBeUndefined();
    // Also a plan asked for explicitly.
    const explicit = await run('apply', dbFile, '--plan', 'backup', '--arg', 'LABEL=x', '--kubeconfig', world.cluster.kubeconfigPath);
    expect(explicit.code).toBe(1);
    expect(await h.checkpointOf(db)).toBeUndefined();
  });

  it('GIVEN a deployed instance with a nightly backup WHEN suspended THEN status says suspended and since when; a slot due meanwhile does not run', async () => {
    world.user.write(dbFile, dbInstance(false));
    world.user.commit('db with a nightly backup');
    await world.user.push();
    await agent.pass();
    expect((await statusInGit()).state).toBe('COMPLETE');

    clock = new Date('2026-03-01T01:30:00Z');
    await commit(dbInstance(true), 'suspend db');
    await agent.pass();
    const suspended = await statusInGit();
    expect(suspended).toMatchObject({ state: 'SUSPENDED', sync: { status: 'Suspended' }, suspended: { since: '2026-03-01T01:30:00.000Z' } });
    const shown = await run('plan', 'status', 'data/db', '--git', world.origin);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('state: SUSPENDED');
    expect(shown.out).toContain("since: '2026-03-01T01:30:00.000Z'");

    // 03:00 passes while suspended: the backup does not run, and the loop is not woken for it.
    clock = new Date('2026-03-01T03:00:05Z');
    const pass = await agent.pass();
    expect(pass.reports).toEqual([]);
    const wake = agent.nextScheduleAt();
    expect(wake === undefined || wake > clock.getTime()).toBe(true);
    clock = new Date('2026-03-02T03:00:05Z');
    expect((await agent.pass()).reports).toEqual([]);
    expect(await backupRuns()).toBe(0);
    const still = await statusInGit();
    expect(still.suspended?.since).toBe('2026-03-01T01:30:00.000Z');
    expect(still.schedules[0]?.lastRun).toBeUndefined();
  });

  it('GIVEN the suspended instance WHEN unsuspended THEN the missed nightly backup runs once, and the next from now', async () => {
    clock = new Date('2026-03-02T10:00:00Z');
    await commit(dbInstance(false), 'unsuspend db');
    const first = await agent.pass();
    expect(first.reports.map((r) => r.outcome.kind)).toEqual(['nothing']);
    const resumed = await statusInGit();
    expect(resumed.suspended).toBeUndefined();
    expect(world.user.git('log', '--format=%s', '--grep=Baton-Event: unsuspended').split('\n').filter(Boolean)).toHaveLength(1);
    const next = await agent.pass();
    expect(next.reports.map((r) => [r.outcome.kind, r.reason])).toEqual([['complete', 'schedule backup (0 3 * * *) due 2026-03-01T03:00:00.000Z']]);
    expect(await backupRuns()).toBe(1);
    expect((await statusInGit()).schedules[0]).toMatchObject({ lastRun: '2026-03-02T10:00:00.000Z', nextRun: '2026-03-03T03:00:00.000Z' });
    expect((await agent.pass()).reports).toEqual([]);
  });
});
