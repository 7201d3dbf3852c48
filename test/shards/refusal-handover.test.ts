/**
 * Status a shard member writes outside an instance's worker, for a commit refused by signature
 * verification (issue #20, the audit record): the refusal written into an instance's status, and the
 * removal of the status of an instance only a refused commit ever named. Neither runs as the
 * instance's worker, so a release neither stops nor waits for them: they must ask, at the moment they
 * write, whether the member still may act on the instance and holds its record. Written for an
 * instance the member let go of meanwhile, the transition lands a second time once its new owner
 * records it too. The interleavings are forced with deferred promises (no sleeps).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { GitMirror } from '../../src/git/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { InstanceKey } from '../../src/plans/checkpoint.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { Renderer } from '../../src/render/index.js';
import type { Agent, CommitRefusal } from '../../src/sync/agent.js';
import { SetOwnership } from './set-ownership.js';
import { checkHistory } from '../helpers/transitions.js';
import { until } from '../helpers/wait.js';
import { agentWorld, instance, outcomeKinds, testAgent, type AgentWorld } from '../sync/fixtures.js';


/** A mirror that, while `pinned` is set, hands the agent that commit (the last verified) instead of the fetched tip. */
class PinnedMirror extends GitMirror {
  pinned: string | undefined;
  /** Runs once after the next fetch, before the agent sees its result. */
  afterFetch: (() => Promise<void>) | undefined;

  override async fetch(branch: string): Promise<string | undefined> {
    const tip = await super.fetch(branch);
    const after = this.afterFetch;
    this.afterFetch = undefined;
    await after?.();
    return this.pinned ?? tip;
  }
}

/** A promise the test settles. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

/** Checkpoints in the cluster; a load of `held` waits until the test lets it go on. */
class HeldLoads extends ConfigMapCheckpointStore {
  held: { id: string; reached: () => void; until: Promise<void> } | undefined;

  override async load(key: InstanceKey): Promise<Awaited<ReturnType<ConfigMapCheckpointStore['load']>>> {
    const stored = await super.load(key);
    const held = this.held;
    if (held !== undefined && `${key.namespace}/${key.name}` === held.id) {
      this.held = undefined;
      held.reached();
      await held.until;
    }
    return stored;
  }
}

describe('status a shard member writes outside a worker for a refused commit', () => {
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;
  const agents: Agent[] = [];
  let refusal: CommitRefusal | undefined;

  beforeAll(async () => {
    world = await agentWorld();
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
    world.user.write('instances/shop/site.yaml', instance({ VALUE: 'one' }));
    world.user.commit('one instance');
    await world.user.push();
  });
  afterAll(async () => {
    for (const a of agents) await a.stop();
    await renderer.close();
    client.close();
    await world.stop();
  });

  const mirror = (dir: string): PinnedMirror => new PinnedMirror({ dir: join(world.sandbox.dir, dir), remote: { url: world.origin, auth: { kind: 'none' } }, env: world.sandbox.env });
  const member = (name: string, m: PinnedMirror, ownership: SetOwnership, extra: Parameters<typeof testAgent>[3] = {}): Agent => {
    const a = testAgent(m, client, renderer, { ownership, commitRefusal: () => refusal, author: { name: `Agent ${name}`, email: `${name}@example.com` }, ...extra });
    agents.push(a);
    return a;
  };
  const recorded = (id: string, event: string): number => checkHistory(world.sandbox.env, world.origin, { instances: [id] }).commits.filter((c) => c.event === event).length;
  /** The tip of the branch as the user sees it now: the last verified commit. */
  const tip = async (): Promise<string> => {
    await world.user.pull();
    return world.user.git('rev-parse', 'HEAD');
  };

  it('GIVEN a refusal being written WHEN the member lets go of the instance while it loads the checkpoint THEN it writes nothing (the new owner records the refusal once)', async () => {
    const id = 'shop/site';
    const ownA = new SetOwnership();
    const ownB = new SetOwnership();
    ownA.set([id], [id]);
    ownB.set([id], []);
    const store = new HeldLoads(client);
    const mirrorA = mirror('agent-a');
    const mirrorB = mirror('agent-b');
    const a = member('a', mirrorA, ownA, { checkpoints: store });
    const b = member('b', mirrorB, ownB);
    await a.start();
    await b.start();
    expect(outcomeKinds(await a.pass())).toEqual({ [id]: 'complete' });

    // An untrusted commit changes the instance; both members are handed the last verified commit.
    const verified = await tip();
    world.user.write('instances/shop/site.yaml', instance({ VALUE: 'two' }));
    const refused = world.user.commit('untrusted change');
    await world.user.push();
    refusal = { commit: refused, reason: 'untrusted', message: `commit ${refused.slice(0, 12)} is signed by an unknown key` };
    mirrorA.pinned = verified;
    mirrorB.pinned = verified;

    // A's refusal waits in its checkpoint load; meanwhile A lets go and B records the refusal.
    const loading = deferred();
    const resume = deferred();
    store.held = { id, reached: loading.resolve, until: resume.promise };
    const passA = a.pass();
    await loading.promise;
    ownA.set([], []);
    await a.release(() => false);
    ownB.set([id], [id]);
    await b.pass();
    expect(outcomeKinds(await b.pass())).toEqual({ [id]: 'refused' });
    await b.writer.flush();
    expect(recorded(id, 'refused')).toBe(1);

    // A's load ends after it let go: it must write nothing for the instance.
    resume.resolve();
    const reportA = await passA;
    await a.writer.flush();
    expect(recorded(id, 'refused')).toBe(1);
    expect(reportA.reports.filter((r) => r.instance === id)).toEqual([]);
    expect(a.instanceStatuses().map((s) => `${s.instance.namespace}/${s.instance.name}`)).not.toContain(id);
  });

  it('GIVEN a pass that took its ownership before the member began to let go WHEN it finds a status only a refused commit named THEN it leaves its removal to the new owner (recorded once)', async () => {
    const id = 'shop/ghost';
    const ownC = new SetOwnership();
    const ownD = new SetOwnership();
    ownC.set([id], [id]);
    ownD.set([id], []);
    const mirrorC = mirror('agent-c');
    const mirrorD = mirror('agent-d');
    // C's coalescing window outlasts the test: what C queues is pushed by its flushes only.
    const c = member('c', mirrorC, ownC, { coalesceMs: 600_000 });
    const d = member('d', mirrorD, ownD);

    // An untrusted commit names a new instance: an agent alone (before the shard set) records it as refused.
    const verified = await tip();
    world.user.write('instances/shop/ghost.yaml', instance({ VALUE: 'ghost' }));
    const named = world.user.commit('untrusted: a new instance');
    await world.user.push();
    refusal = { commit: named, reason: 'unsigned', message: `commit ${named.slice(0, 12)} is not signed` };
    const mirrorL = mirror('agent-alone');
    mirrorL.pinned = verified;
    const alone = testAgent(mirrorL, client, renderer, { commitRefusal: () => refusal, author: { name: 'Agent alone', email: 'alone@example.com' } });
    await alone.start();
    expect(outcomeKinds(await alone.pass())[id]).toBe('refused');
    await alone.stop();
    expect(recorded(id, 'refused')).toBe(1);

    // C reads the record (the instance is C's); D's view does not give it to D yet.
    mirrorC.pinned = verified;
    mirrorD.pinned = verified;
    await c.start();
    await d.start();
    expect((await c.pass()).reports).toEqual([]);

    // A second untrusted commit drops it again: the status of a never-applied instance is to be removed.
    await world.user.pull();
    world.user.remove('instances/shop/ghost.yaml');
    const dropped = world.user.commit('untrusted: the new instance dropped');
    await world.user.push();
    refusal = { commit: dropped, reason: 'unsigned', message: `commit ${dropped.slice(0, 12)} is not signed` };

    // C's pass takes its ownership, then C begins to let go of the instance while the pass fetches; the
    // release has pushed what C queued and not yet dropped C's record when the pass goes on.
    const flushed = deferred();
    const parked = deferred();
    const flush = c.writer.flush.bind(c.writer);
    let releaseFlushes = 1;
    c.writer.flush = async () => {
      await flush();
      if (releaseFlushes === 0) return;
      releaseFlushes -= 1;
      flushed.resolve();
      await parked.promise;
    };
    let releasing: Promise<void> | undefined;
    mirrorC.afterFetch = async () => {
      ownC.set([], []);
      releasing = c.release(() => false);
      await flushed.promise;
    };
    const during = await c.pass({ wait: false });
    expect(during.reports.filter((r) => r.instance === id)).toEqual([]);
    parked.resolve();
    await releasing;

    // D takes over and removes the status; whatever C queued is pushed afterwards.
    ownD.set([id], [id]);
    await d.pass();
    await d.writer.flush();
    await until(() => recorded(id, 'removed') === 1, 60_000, 'the new owner removed the status', 50);
    await c.writer.flush();
    expect(recorded(id, 'removed')).toBe(1);
  });
});
