/**
 * Children of Instance tasks in a shard set (issue #20; docs/scale-out.md, "Children of Instance tasks"):
 * a child's record goes with its parent's. The member that acts on the parent reads the child's status
 * when the parent's worker meets the child and drops it when it lets the parent go; the child's own id
 * (which hashes wherever it hashes) never decides. Before, the parent's new owner rewrote a deployed
 * child's status from nothing (PENDING, never applied, no plans, no inventory), and a child's plan
 * resumed after a takeover recorded its transitions a second time. Ownership is driven by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient, WatchEvent } from '../../src/kube/client.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { Renderer } from '../../src/render/index.js';
import type { Agent } from '../../src/sync/agent.js';
import { SetOwnership } from './set-ownership.js';
import { parseStatus, type InstanceStatus } from '../../src/sync/status-file.js';
import { checkHistory } from '../helpers/transitions.js';
import { until } from '../helpers/wait.js';
import { API, agentWorld, gatedFramework, mirrorOf, releaseGate, testAgent, type AgentWorld } from '../sync/fixtures.js';
import { deployAndUpdatePlans, storeFramework } from '../compose/plan-lines.js';


const plans = deployAndUpdatePlans;
/** A parent framework whose Instance task `db` creates `<instance>-db` of `child` (whose params it sets), then applies a ConfigMap. */
const parentFramework = (name: string, child: string, params: string): Record<string, string> => ({
  [`frameworks/${name}/1.0.0/framework.yaml`]: [API, 'kind: Framework', `name: ${name}`, 'version: 1.0.0', 'tasks:',
    `  - { name: db, kind: Instance, framework: ${child}, version: "^1.0.0", resources: [db.yaml.ejs] }`,
    '  - { name: main, kind: Apply, resources: [app.yaml.ejs] }',
    ...plans(['{ name: db, tasks: [db] }', '{ name: main, tasks: [main] }']), ''].join('\n'),
  [`frameworks/${name}/1.0.0/params.yaml`]: '- { name: NOTE, type: string, default: a }\n',
  [`frameworks/${name}/1.0.0/templates/db.yaml.ejs`]: `apiVersion: baton.dev/v1alpha1\nkind: Instance\nmetadata:\n  name: <%= instance.name %>-db\nparams:\n  ${params}\n`,
  [`frameworks/${name}/1.0.0/templates/app.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  note: <%= params.NOTE %>\n',
});
const files: Record<string, string> = {
  ...storeFramework(),
  ...parentFramework('app', 'store', 'SIZE: 2'),
  ...gatedFramework(),
  ...parentFramework('nest', 'gated', 'VALUE: v'),
};
const parent = (framework: string, note: string): string => `${API}\nkind: Instance\nframework: ${framework}\nversion: 1.0.0\nparams: { NOTE: ${note} }\n`;

/**
 * A client that stops answering once `freeze()` is called (every call pending forever), as the API calls
 * of a killed process: the member's worker stays where it was and records nothing more.
 */
function freezable(client: KubeClient): { client: KubeClient; freeze: () => void } {
  let frozen = false;
  const never = new Promise<never>(() => undefined);
  const stuck: AsyncIterable<WatchEvent> = { [Symbol.asyncIterator]: () => ({ next: () => never }) };
  const proxy = new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        if (frozen) return prop === 'watch' ? stuck : never;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { client: proxy, freeze: () => { frozen = true; } };
}

describe('children of Instance tasks in a shard set', () => {
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;
  const agents: Agent[] = [];
  const valuesFor = () => ({ cluster: client });

  beforeAll(async () => {
    world = await agentWorld();
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
    for (const [p, t] of Object.entries(files)) world.user.write(p, t);
    world.user.write('instances/shop/app.yaml', parent('app', 'a'));
    world.user.commit('a parent and its child');
    await world.user.push();
  });
  afterAll(async () => {
    for (const a of agents) await a.stop();
    await renderer.close();
    client.close();
    await world.stop();
  });

  const statusAtHead = async (id: string): Promise<InstanceStatus> => {
    await world.user.pull();
    return parseStatus(world.user.git('show', `HEAD:status/${id}.yaml`), id);
  };
  /** What a handover must keep of a deployed child's record. */
  const deployed = (s: InstanceStatus): unknown => ({ state: s.state, plans: s.plans, inventory: s.inventory, applied: s.sync?.lastApplied, parent: s.parent });

  it('GIVEN a deployed child WHEN its parent changes hands (and the new owner lets go of other instances) THEN the new owner keeps the child record (state, plans, inventory), records nothing twice, and removes the child with its parent', async () => {
    const [ownP, ownQ, ownR] = [new SetOwnership(), new SetOwnership(), new SetOwnership()];
    ownP.set(['shop/app']);
    // R's share holds the child's own id: a child never goes by its own id, R neither reads nor keeps it.
    ownR.set(['shop/app-db']);
    const agent = (name: string, ownership: SetOwnership): Agent => testAgent(mirrorOf(world, `agent-${name}`), client, renderer, { ownership, valuesFor, author: { name: `Agent ${name}`, email: `${name}@example.com` } });
    const [p, q, r] = [agent('p', ownP), agent('q', ownQ), agent('r', ownR)];
    agents.push(p, q, r);
    for (const a of [p, q, r]) await a.start();
    expect((await p.pass()).reports.map((x) => `${x.instance} ${x.outcome.kind}`)).toEqual(['shop/app complete']);
    await p.writer.flush();
    const before = await statusAtHead('shop/app-db');
    expect(before.state).toBe('COMPLETE');
    expect(before.inventory).toEqual(['v1/ConfigMap/shop/app-db-store']);

    ownP.set([]);
    await p.release(() => false);
    expect(p.instanceStatuses()).toEqual([]);
    ownQ.set(['shop/app']);
    world.user.write('instances/shop/app.yaml', parent('app', 'b'));
    world.user.commit('note b');
    await world.user.push();
    expect((await q.pass()).reports.map((x) => `${x.instance} ${x.outcome.kind}`)).toEqual(['shop/app complete']);
    await q.writer.flush();
    expect(deployed(await statusAtHead('shop/app-db'))).toEqual(deployed(before));

    // Q lets go of something else: the child stays with its parent, whatever its own id.
    await q.release((id) => id === 'shop/app');
    world.user.write('instances/shop/app.yaml', parent('app', 'c'));
    world.user.commit('note c');
    await world.user.push();
    expect((await q.pass()).reports.map((x) => `${x.instance} ${x.outcome.kind}`)).toEqual(['shop/app complete']);
    await q.writer.flush();
    expect(deployed(await statusAtHead('shop/app-db'))).toEqual(deployed(before));
    expect(q.instanceStatuses().map((s) => `${s.instance.namespace}/${s.instance.name}`).sort()).toEqual(['shop/app', 'shop/app-db']);

    await r.pass();
    expect(r.instanceStatuses()).toEqual([]);

    // The parent removed: its owner removes the child with it, and holds no record of either after.
    world.user.git('rm', '-q', 'instances/shop/app.yaml');
    world.user.commit('no more app');
    await world.user.push();
    expect((await q.pass()).reports.map((x) => `${x.instance} ${x.outcome.kind}`)).toEqual(['shop/app removed']);
    await q.writer.flush();
    await world.user.pull();
    expect(world.user.git('ls-files', 'status/shop')).toBe('');
    expect(q.instanceStatuses()).toEqual([]);

    const history = checkHistory(world.sandbox.env, world.origin, { instances: ['shop/app', 'shop/app-db'] });
    expect(history.defects).toEqual([]);
    expect(history.commits.filter((c) => c.instance === 'shop/app-db').map((c) => `${c.event}\t${c.author}`)).toEqual([
      'plan-started\tAgent p', 'phase-complete\tAgent p', 'plan-complete\tAgent p', 'removed\tAgent q',
    ]);
  });

  /**
   * `waiting`: A is lost while the child's phase two waits on its gate; B resumes the child's plan.
   * `completed`: A is lost right after the child's plan completed, before A recorded it (the child's engine
   * works through A's values context, which stays up; A's own calls, the checkpoint read before recording
   * among them, never answer); B meets an up-to-date child whose record says IN_PROGRESS.
   */
  it.each([
    { lostWhen: 'waiting', name: 'deep', does: 'resumes the child plan' },
    { lostWhen: 'completed', name: 'done', does: 'finds the child plan complete' },
  ])('GIVEN a child plan in its second phase WHEN its parent\'s member is lost ($lostWhen) and another member takes the parent over and $does THEN each transition of the child is recorded once', async ({ lostWhen, name }) => {
    await world.user.pull();
    world.user.write(`instances/shop/${name}.yaml`, parent('nest', 'a'));
    world.user.commit(`a parent whose child waits on a gate (${lostWhen})`);
    await world.user.push();
    const [id, child, gate] = [`shop/${name}`, `shop/${name}-db`, `gate-${name}-db`];
    const [ownA, ownB] = [new SetOwnership(), new SetOwnership()];
    ownA.set([id]);
    const lost = freezable(client);
    const mirrorA = mirrorOf(world, `agent-a-${name}`);
    // Not stopped at the end: a lost member's work never ends.
    const a = testAgent(mirrorA, lost.client, renderer, { ownership: ownA, valuesFor: () => ({ cluster: lostWhen === 'waiting' ? lost.client : client }), author: { name: 'Agent a', email: 'a@example.com' } });
    const b = testAgent(mirrorOf(world, `agent-b-${name}`), client, renderer, { ownership: ownB, valuesFor, author: { name: 'Agent b', email: 'b@example.com' } });
    agents.push(b);
    await a.start();
    await b.start();

    // A runs the parent; the child's phase one is recorded on the branch, its phase two waits on its gate.
    void a.pass();
    const childEvents = (): string[] => checkHistory(world.sandbox.env, world.origin, { instances: [child] }).commits.map((c) => `${c.event}\t${c.author}`);
    await until(() => childEvents().includes('phase-complete\tAgent a'), 60_000, 'the child\'s phase one recorded', 50);
    await until(async () => (await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: gate })) !== undefined, 60_000, 'the child\'s gate applied', 50);
    // A is lost: no API call, fetch or push of it answers again.
    lost.freeze();
    const never = new Promise<never>(() => undefined);
    mirrorA.push = () => never;
    mirrorA.fetch = () => never;
    await releaseGate(client, 'shop', gate);
    const childPlan = async (): Promise<string | undefined> => (await new ConfigMapCheckpointStore(client).load({ namespace: 'shop', name: `${name}-db` }))?.checkpoint.active?.state.status;
    if (lostWhen === 'completed') await until(async () => (await childPlan()) === 'COMPLETE', 60_000, 'the child plan complete', 50);

    // B takes the parent over and resumes the parent's plan, meeting the child again.
    ownB.set([id]);
    expect((await b.pass()).reports.map((x) => `${x.instance} ${x.outcome.kind}`)).toEqual([`${id} complete`]);
    await b.writer.flush();
    expect(await childPlan()).toBe('COMPLETE');

    const history = checkHistory(world.sandbox.env, world.origin, { instances: [id, child] });
    expect(history.defects).toEqual([]);
    expect(childEvents()).toEqual(['plan-started\tAgent a', 'phase-complete\tAgent a', 'phase-complete\tAgent b', 'plan-complete\tAgent b']);
    const status = await statusAtHead(child);
    expect(status.state).toBe('COMPLETE');
    expect(status.parent).toEqual({ instance: id, task: 'db' });
  });
});
