/**
 * An instance changing hands between two shard members (in one process, ownership driven by the
 * test): the new owner must decide with the record its previous owner pushed when it let go, not with
 * a status file it read earlier, while the instance was its by its own view but still the other's to
 * act on. A stale record derives transitions the previous owner already recorded: they would land twice.
 * The same holds for a member that lets go of an instance while one of its passes is under way: that
 * pass must not count the instance as read, or the member decides with no record when it comes back.
 * Nor may a drift check that was under way when the member let go record anything for the instance:
 * its record is gone with the release, and the transitions derived against no record are the run's again.
 * Nor when the instance came back meanwhile, after another member ran a plan: the check decided with
 * the record and the desired state of before (it would record the new objects as drifted from the old).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { DriftKeeper } from '../../src/drift/index.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { Renderer } from '../../src/render/index.js';
import type { Agent } from '../../src/sync/agent.js';
import { SetOwnership } from './set-ownership.js';
import { parseStatus } from '../../src/sync/status-file.js';
import { gitAsync } from '../helpers/git-server.js';
import { checkHistory } from '../helpers/transitions.js';
import { until } from '../helpers/wait.js';
import { API, agentWorld, gatedFramework, instance, mirrorOf, releaseGate, testAgent, type AgentWorld } from '../sync/fixtures.js';


describe('an instance handed from one shard member to another', () => {
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;
  const agents: Agent[] = [];

  beforeAll(async () => {
    world = await agentWorld();
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
    for (const [path, text] of Object.entries(gatedFramework())) world.user.write(path, text);
    world.user.write('instances/shop/slow.yaml', [API, 'kind: Instance', 'framework: gated', 'version: 1.0.0', ''].join('\n'));
    world.user.commit('one gated instance');
    await world.user.push();
  });
  afterAll(async () => {
    for (const a of agents) await a.stop();
    await renderer.close();
    client.close();
    await world.stop();
  });

  const events = async (): Promise<string[]> =>
    (await gitAsync(world.sandbox.env, world.origin, 'log', '--reverse', '--format=%(trailers:key=Baton-Event,valueonly)', 'main')).split('\n').filter((e) => e !== '');

  it('GIVEN the new owner read the status while the old owner still ran the plan WHEN the old owner completes and lets go THEN the new owner records nothing again', async () => {
    const id = 'shop/slow';
    const ownA = new SetOwnership();
    const ownB = new SetOwnership();
    // A acts on the instance; B's own view already gives it to B, but A's published view still holds it.
    ownA.set([id], [id]);
    ownB.set([id], []);
    const a = testAgent(mirrorOf(world, 'agent-a'), client, renderer, { ownership: ownA, author: { name: 'Agent a', email: 'a@example.com' } });
    const b = testAgent(mirrorOf(world, 'agent-b'), client, renderer, { ownership: ownB, author: { name: 'Agent b', email: 'b@example.com' } });
    agents.push(a, b);
    await a.start();
    await b.start();

    // A starts the plan; phase one completes and reaches Git; the plan waits on phase two's gate.
    await a.pass({ wait: false });
    await until(async () => (await events()).includes('phase-complete'), 60_000, 'phase one recorded', 100);
    // B polls meanwhile: the instance is not yet its to act on.
    expect((await b.pass()).reports).toEqual([]);

    // A completes the plan, then lets go of the instance (pushing its status); B may act on it now.
    await releaseGate(client, 'shop', 'gate-slow');
    await until(async () => (await new ConfigMapCheckpointStore(client).load({ namespace: 'shop', name: 'slow' }))?.checkpoint.active?.state.status === 'COMPLETE', 60_000, 'the plan COMPLETE', 100);
    ownA.set([], []);
    await a.release(() => false);
    ownB.set([id], [id]);
    await b.pass();

    const history = checkHistory(world.sandbox.env, world.origin);
    expect(history.defects).toEqual([]);
    expect(await events()).toEqual(['plan-started', 'phase-complete', 'phase-complete', 'plan-complete']);
  });

  it('GIVEN a pass under way WHEN the member lets go of the instance meanwhile and gets it back after another member ran a plan THEN it reads the record again and records nothing twice', async () => {
    const id = 'shop/late';
    await world.user.pull();
    world.user.write('instances/shop/late.yaml', [API, 'kind: Instance', 'framework: gated', 'version: 1.0.0', ''].join('\n'));
    world.user.commit('a second gated instance');
    await world.user.push();
    const ownC = new SetOwnership();
    const ownD = new SetOwnership();
    const mirrorD = mirrorOf(world, 'agent-d');
    const c = testAgent(mirrorOf(world, 'agent-c'), client, renderer, { ownership: ownC, author: { name: 'Agent c', email: 'c@example.com' } });
    const d = testAgent(mirrorD, client, renderer, { ownership: ownD, author: { name: 'Agent d', email: 'd@example.com' } });
    agents.push(c, d);
    await c.start();
    await d.start();

    // D's pass takes its ownership (the instance is D's), then D lets go of it while the pass fetches.
    ownD.set([id], [id]);
    const fetch = mirrorD.fetch.bind(mirrorD);
    let letGoDuringFetch = true;
    mirrorD.fetch = async (branch) => {
      const tip = await fetch(branch);
      if (letGoDuringFetch) {
        letGoDuringFetch = false;
        ownD.set([], []);
        await d.release(() => false);
      }
      return tip;
    };
    const during = await d.pass();
    expect(during.reports.filter((r) => r.instance === id && r.outcome.kind !== 'nothing')).toEqual([]);

    // C runs the plan to the end and lets go; the instance comes back to D.
    ownC.set([id], [id]);
    await c.pass({ wait: false });
    await until(async () => (await new ConfigMapCheckpointStore(client).load({ namespace: 'shop', name: 'late' }))?.checkpoint.active?.phases[0]?.state.status === 'COMPLETE', 60_000, 'phase one of shop/late', 100);
    await releaseGate(client, 'shop', 'gate-late');
    await until(async () => (await new ConfigMapCheckpointStore(client).load({ namespace: 'shop', name: 'late' }))?.checkpoint.active?.state.status === 'COMPLETE', 60_000, 'shop/late COMPLETE', 100);
    ownC.set([], []);
    await c.release(() => false);
    ownD.set([id], [id]);
    await d.pass();
    await d.writer.flush();

    const late = checkHistory(world.sandbox.env, world.origin, { instances: [id] });
    expect(late.defects).toEqual([]);
    // Per transition (a shard member's commit may record several).
    const lateEvents = late.commits.map((c) => `${c.event}\t${c.author}`).filter((e) => /^(plan|phase)-/.test(e));
    expect(lateEvents).toEqual(['plan-started\tAgent c', 'phase-complete\tAgent c', 'phase-complete\tAgent c', 'plan-complete\tAgent c']);
  });

  it('GIVEN a drift check under way WHEN the member lets go of the instance meanwhile THEN the check records nothing for it (its run is not recorded again)', async () => {
    const id = 'shop/drifty';
    await world.user.pull();
    world.user.write('instances/shop/drifty.yaml', instance({ VALUE: 'drifty' }));
    world.user.commit('an instance checked for drift');
    await world.user.push();
    const own = new SetOwnership();
    own.set([id], [id]);
    const drift = new DriftKeeper({ client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(client) });
    const e = testAgent(mirrorOf(world, 'agent-e'), client, renderer, { ownership: own, drift, author: { name: 'Agent e', email: 'e@example.com' } });
    agents.push(e);
    await e.start();
    expect((await e.pass()).reports.find((r) => r.instance === id)?.outcome.kind).toBe('complete');

    // The next drift sweep waits until the member has let go of the instance (another member's now).
    const check = drift.check.bind(drift);
    let sweeping = false;
    let letGo: () => void = () => undefined;
    const released = new Promise<void>((resolve) => { letGo = resolve; });
    drift.check = async (due) => {
      sweeping = true;
      await released;
      return check(due);
    };
    const pass = e.pass({ drift: 'all' });
    await until(() => sweeping, 60_000, 'the drift sweep under way', 20);
    own.set([], []);
    await e.release(() => false);
    letGo();
    await pass;
    await e.writer.flush();

    const drifty = checkHistory(world.sandbox.env, world.origin, { instances: [id] });
    expect(drifty.defects).toEqual([]);
    // Per transition (a shard member's commit may record several).
    expect(drifty.commits.filter((c) => c.event === 'plan-started')).toHaveLength(1);
  });

  it('GIVEN a drift check under way WHEN the member lets go of the instance and gets it back after another member ran a plan THEN the check records nothing for it', async () => {
    const id = 'shop/back';
    await world.user.pull();
    world.user.write('instances/shop/back.yaml', instance({ VALUE: 'one' }));
    world.user.commit('an instance checked for drift, to come back');
    await world.user.push();
    const ownG = new SetOwnership();
    const ownH = new SetOwnership();
    ownG.set([id], [id]);
    ownH.set([id], []);
    const drift = new DriftKeeper({ client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(client) });
    const g = testAgent(mirrorOf(world, 'agent-g'), client, renderer, { ownership: ownG, drift, author: { name: 'Agent g', email: 'g@example.com' } });
    const h = testAgent(mirrorOf(world, 'agent-h'), client, renderer, { ownership: ownH, author: { name: 'Agent h', email: 'h@example.com' } });
    agents.push(g, h);
    await g.start();
    await h.start();
    expect((await g.pass()).reports.find((r) => r.instance === id)?.outcome.kind).toBe('complete');

    // G's next drift sweep waits until G has let go of the instance and got it back.
    const check = drift.check.bind(drift);
    let sweeping = false;
    let goOn: () => void = () => undefined;
    const back = new Promise<void>((resolve) => { goOn = resolve; });
    drift.check = async (due) => {
      sweeping = true;
      await back;
      return check(due);
    };
    const sweep = g.pass({ drift: 'all' });
    await until(() => sweeping, 60_000, 'the drift sweep under way', 20);
    ownG.set([], []);
    await g.release(() => false);

    // Meanwhile H owns it and applies a new desired state, then lets go; G reads H's record.
    ownH.set([id], [id]);
    await world.user.pull();
    world.user.write('instances/shop/back.yaml', instance({ VALUE: 'two' }));
    const changed = world.user.commit('a new desired state, applied by the other member');
    await world.user.push();
    expect((await h.pass()).reports.find((r) => r.instance === id)?.outcome.kind).toBe('complete');
    ownH.set([], []);
    await h.release(() => false);
    ownG.set([id], [id]);
    expect((await g.pass()).reports.filter((r) => r.instance === id && r.outcome.kind !== 'nothing')).toEqual([]);

    // The sweep of before ends now: it looked at the old desired state, against the old record.
    goOn();
    await sweep;
    await g.writer.flush();

    const back2 = checkHistory(world.sandbox.env, world.origin, { instances: [id] });
    expect(back2.defects).toEqual([]);
    const lastOfH = back2.commits.map((c) => c.author).lastIndexOf('Agent h');
    expect(back2.commits.slice(lastOfH + 1).map((c) => `${c.event}\t${c.author}`)).toEqual([]);
    await world.user.pull();
    expect(parseStatus(world.user.git('show', 'HEAD:status/shop/back.yaml'), 'status/shop/back.yaml').sourceCommit).toBe(changed);
  });
});
