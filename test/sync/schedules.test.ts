import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterRun, dueRun, scheduleStatus } from '../../src/sync/schedules.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { Renderer } from '../../src/render/index.js';
import { Agent } from '../../src/sync/agent.js';
import { parseStatus } from '../../src/sync/status-file.js';
import type { GitSandbox, WorkClone } from '../helpers/git-server.js';
import type { TestCluster } from '../helpers/cluster.js';
import { testAgent, mirrorOf, agentWorld, API, type AgentWorld } from './fixtures.js';

const nightly = { plan: 'backup', cron: '0 3 * * *', timezone: 'Europe/Berlin' };
const at = (iso: string): Date => new Date(iso);

describe('schedule arithmetic', () => {
  it.each([
    ['a schedule never run counts from when it was first seen', [], '2026-01-10T00:00:00Z', '2026-01-10T02:00:00.000Z'],
    ['a schedule that ran counts from its last run', [{ ...nightly, lastRun: '2026-01-10T02:00:05Z' }], '2026-01-12T00:00:00Z', '2026-01-11T02:00:00.000Z'],
  ])('%s', (_name, previous, firstSeen, next) => {
    expect(scheduleStatus([nightly], previous, at(firstSeen))[0]?.nextRun).toBe(next);
  });

  it('GIVEN three missed slots WHEN the agent comes back THEN one run is due, and after it the next slot is in the future', () => {
    const status = scheduleStatus([nightly], [{ ...nightly, lastRun: '2026-01-01T02:00:00Z' }], at('2026-01-05T12:00:00Z'));
    const now = at('2026-01-05T12:00:00Z');
    const due = dueRun([nightly], status, now);
    expect(due?.slot).toBe('2026-01-02T02:00:00.000Z');
    const after = afterRun(status, due!, now);
    expect(after[0]?.nextRun).toBe('2026-01-06T02:00:00.000Z');
    expect(dueRun([nightly], after, now)).toBeUndefined();
  });

  it('GIVEN an expression that never fires THEN it has no next run (validate reports it)', () => {
    expect(scheduleStatus([{ plan: 'backup', cron: '0 0 31 2 *' }], [], at('2026-01-01T00:00:00Z'))[0]?.nextRun).toBeUndefined();
  });
});

describe('scheduled plans run by the agent', () => {
  let sandbox: GitSandbox;
  let cluster: TestCluster;
  let client: HttpKubeClient;
  let renderer: Renderer;
  let user: WorkClone;
  let origin: string;
  let clock = at('2026-03-01T01:00:00Z');

  let world: AgentWorld;

  beforeAll(async () => {
    world = await agentWorld();
    ({ sandbox, cluster, origin, user } = world);
    client = await createKubeClient({ url: cluster.url });
    renderer = new Renderer();
    user.write('instances/data/db.yaml', `${API}\nkind: Instance\nframework: web\nversion: 1.0.0\nschedules:\n  - { plan: backup, cron: "0 3 * * *", timezone: UTC, args: { LABEL: nightly } }\n`);
    user.commit('db with a nightly backup');
    await user.push();
  });
  afterAll(async () => {
    await renderer.close();
    client.close();
    await world.stop();
  });

  const newAgent = async (): Promise<Agent> => {
    const agent = testAgent(mirrorOf({ sandbox, origin }), client, renderer, { now: () => clock });
    await agent.start();
    return agent;
  };
  const status = async (): Promise<ReturnType<typeof parseStatus>> => {
    await user.pull();
    return parseStatus(user.git('show', 'HEAD:status/data/db.yaml'), 'db');
  };

  it('GIVEN a nightly schedule WHEN its time comes THEN the plan runs on time, and after a restart a missed run happens once', async () => {
    const agent = await newAgent();
    expect((await agent.pass()).reports.map((r) => r.outcome.kind)).toEqual(['complete']);
    expect((await status()).schedules).toEqual([{ plan: 'backup', cron: '0 3 * * *', timezone: 'UTC', nextRun: '2026-03-01T03:00:00.000Z' }]);

    clock = at('2026-03-01T02:59:00Z');
    expect((await agent.pass()).reports).toEqual([]);
    clock = at('2026-03-01T03:00:01Z');
    const ran = await agent.pass();
    expect(ran.reports.map((r) => [r.outcome.kind, r.reason])).toEqual([['complete', 'schedule backup (0 3 * * *) due 2026-03-01T03:00:00.000Z']]);
    const after = await status();
    expect(after.currentPlan).toMatchObject({ plan: 'backup', args: { LABEL: 'nightly' } });
    expect(after.schedules[0]).toMatchObject({ lastRun: '2026-03-01T03:00:01.000Z', nextRun: '2026-03-02T03:00:00.000Z' });
    await agent.stop();

    // The agent is down for three nights; a new one runs the missed backup once.
    clock = at('2026-03-05T12:00:00Z');
    const restarted = await newAgent();
    expect((await restarted.pass()).reports.map((r) => r.outcome.kind)).toEqual(['complete']);
    expect((await restarted.pass()).reports).toEqual([]);
    expect((await status()).schedules[0]).toMatchObject({ lastRun: '2026-03-05T12:00:00.000Z', nextRun: '2026-03-06T03:00:00.000Z' });
    await restarted.stop();
  });

  it('GIVEN a scheduled run in flight WHEN the loop asks when to wake THEN the started slot is not due again (no busy loop)', async () => {
    clock = at('2026-03-06T03:00:05Z');
    const agent = await newAgent();
    await agent.pass({ wait: false });
    const wake = agent.nextScheduleAt();
    expect(wake === undefined || wake > clock.getTime(), `wake ${wake === undefined ? "none" : new Date(wake).toISOString()}`).toBe(true);
    await agent.drain();
    expect(agent.nextScheduleAt()).toBe(Date.parse('2026-03-07T03:00:00.000Z'));
    await agent.stop();
  });

  it('GIVEN a due schedule of an instance busy with a change plan WHEN the loop asks when to wake THEN not in the past; the schedule runs after the plan', async () => {
    clock = at('2026-03-06T04:00:00Z');
    const agent = await newAgent();
    await agent.pass();
    await user.pull();
    user.write('instances/data/db.yaml', `${API}\nkind: Instance\nframework: web\nversion: 1.0.0\nparams: { VALUE: changed }\nschedules:\n  - { plan: backup, cron: "0 3 * * *", timezone: UTC, args: { LABEL: nightly } }\n`);
    user.commit('db value changed');
    await user.push();
    clock = at('2026-03-07T03:00:05Z');
    const started = await agent.pass({ wait: false });
    expect(started.commit).toBeDefined();
    const wake = agent.nextScheduleAt();
    expect(wake === undefined || wake > clock.getTime()).toBe(true);
    await agent.drain();
    const after = await agent.pass();
    expect(after.reports.map((r) => r.reason)).toEqual(['schedule backup (0 3 * * *) due 2026-03-07T03:00:00.000Z']);
    await agent.stop();
  });

  it('GIVEN a scheduled run that breaks off (checkpoint store unreachable) WHEN polled THEN the slot is retried 30 s later, not in a busy loop', async () => {
    clock = at('2026-03-08T03:00:10Z');
    let failing = true;
    const store = new ConfigMapCheckpointStore(client);
    const flaky = Object.assign(Object.create(store) as ConfigMapCheckpointStore, {
      load: (key: Parameters<ConfigMapCheckpointStore['load']>[0]) => (failing ? Promise.reject(new Error('connect ECONNREFUSED')) : store.load(key)),
    });
    const agent = testAgent(mirrorOf({ sandbox, origin }), client, renderer, { checkpoints: flaky, now: () => clock });
    await agent.start();
    expect((await agent.pass()).reports.map((r) => r.outcome.kind)).toEqual(['error']);
    expect(agent.nextScheduleAt()).toBe(clock.getTime() + 30_000);
    expect((await agent.pass()).reports).toEqual([]);
    failing = false;
    clock = at('2026-03-08T03:00:41Z');
    const retried = await agent.pass();
    expect(retried.reports.map((r) => [r.outcome.kind, r.reason])).toEqual([['complete', 'schedule backup (0 3 * * *) due 2026-03-08T03:00:00.000Z']]);
    expect(agent.nextScheduleAt()).toBe(Date.parse('2026-03-09T03:00:00.000Z'));
    await agent.stop();
  });
});
