/**
 * A branch tip refused by signature verification, as the agent sees it: the mirror hands it the last
 * verified commit and `commitRefusal` names the refused one (real signatures are tested in
 * test/git/verify.test.ts and end to end in leader.test.ts). Only the instances the refused commit
 * changes get the refusal in their status; nothing of it is applied; a verified commit then runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { GitMirror } from '../../src/git/index.js';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { Agent, CommitRefusal } from '../../src/sync/agent.js';
import { parseStatus } from '../../src/sync/status-file.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { instance, testAgent, type AgentWorld, outcomeKinds } from './fixtures.js';

/** A mirror that, while `pinned` is set, hands the agent that commit instead of the fetched tip. */
class PinnedMirror extends GitMirror {
  pinned: string | undefined;
  tip: string | undefined;
  /** As a restarted verifying mirror whose tip is refused: no verified commit known at all. */
  noneVerified = false;

  override async fetch(branch: string): Promise<string | undefined> {
    this.tip = await super.fetch(branch);
    return this.noneVerified ? undefined : (this.pinned ?? this.tip);
  }
}

describe('the agent and a commit refused by signature verification', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let mirror: PinnedMirror;
  let agent: Agent;
  let refusal: CommitRefusal | undefined;

  beforeAll(async () => {
    h = await startAgentHarness({
      files: { 'instances/shop/site.yaml': instance({ VALUE: 'one' }), 'instances/shop/blog.yaml': instance({ VALUE: 'blog' }) },
      message: 'two instances',
      mirror: (w) => (mirror = new PinnedMirror({ dir: join(w.sandbox.dir, 'agent'), remote: { url: w.origin, auth: { kind: 'none' } }, env: w.sandbox.env })),
      agent: { coalesceMs: 20, commitRefusal: () => refusal },
    });
    ({ world, client, agent } = h);
  });
  afterAll(() => h.stop());

  const statusOf = async (name: string): Promise<ReturnType<typeof parseStatus> | undefined> => {
    await world.user.pull();
    try {
      return parseStatus(world.user.git('show', `HEAD:status/shop/${name}.yaml`), name);
    } catch {
      return undefined;
    }
  };
  const value = async (name: string): Promise<unknown> => (await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name }))?.['data'];

  it('GIVEN a verified commit WHEN polled THEN both instances deploy', async () => {
    expect(outcomeKinds(await agent.pass())).toEqual({ 'shop/site': 'complete', 'shop/blog': 'complete' });
  });

  it('GIVEN an untrusted commit that changes one instance and adds another WHEN polled THEN those two are REFUSED in status, the third is untouched, nothing is applied', async () => {
    await world.user.pull();
    mirror.pinned = world.user.git('rev-parse', 'HEAD');
    const blogBefore = world.user.git('show', 'HEAD:status/shop/blog.yaml');
    world.user.write('instances/shop/site.yaml', instance({ VALUE: 'two' }));
    world.user.write('instances/shop/shop.yaml', instance({ VALUE: 'new' }));
    const refused = world.user.commit('untrusted change');
    await world.user.push();
    refusal = { commit: refused, reason: 'untrusted', message: `commit ${refused.slice(0, 12)} is signed by key SHA256:abc, which is not in the allowed signers` };

    const report = await agent.pass();
    expect(outcomeKinds(report)).toEqual({ 'shop/site': 'refused', 'shop/shop': 'refused' });
    const site = await statusOf('site');
    expect(site).toMatchObject({ state: 'REFUSED', refusal: { code: 'COMMIT_UNTRUSTED', commit: refused }, currentPlan: { plan: 'deploy' }, framework: { name: 'web' } });
    expect(site?.refusal?.message).toContain('not in the allowed signers');
    // The verified tip is a status commit: the source is the user's commit behind it.
    expect(site?.sourceCommit).toBe(world.user.git('log', '-1', '--format=%H', '--invert-grep', '--grep=Baton-Status-File', mirror.pinned));
    expect(await statusOf('shop')).toMatchObject({ state: 'REFUSED', framework: { name: 'web', version: '1.0.0' }, refusal: { code: 'COMMIT_UNTRUSTED' } });
    expect(world.user.git('show', 'HEAD:status/shop/blog.yaml')).toBe(blogBefore);
    expect(await value('site')).toMatchObject({ value: 'one' });
    expect(await value('shop')).toBeUndefined();
  });

  it('GIVEN the same refused commit WHEN polled again THEN nothing is written', async () => {
    await world.user.pull();
    const before = world.user.git('rev-parse', 'HEAD');
    expect((await agent.pass()).reports).toEqual([]);
    await world.user.pull();
    expect(world.user.git('rev-parse', 'HEAD')).toBe(before);
  });

  it('GIVEN a second untrusted commit that drops the new instance WHEN polled THEN the refusal names it for site, and the never-applied instance loses its status', async () => {
    await world.user.pull();
    world.user.remove('instances/shop/shop.yaml');
    const second = world.user.commit('untrusted, drops shop');
    await world.user.push();
    refusal = { commit: second, reason: 'unsigned', message: `commit ${second.slice(0, 12)} is not signed` };

    const report = await agent.pass();
    expect(outcomeKinds(report)).toEqual({ 'shop/site': 'refused', 'shop/shop': 'removed' });
    expect(await statusOf('site')).toMatchObject({ state: 'REFUSED', refusal: { code: 'COMMIT_UNSIGNED', commit: second } });
    expect(await statusOf('shop')).toBeUndefined();
    expect(await value('site')).toMatchObject({ value: 'one' });
    // Back to the same refused change as before (shop added again, unsigned): recorded again for shop.
    await world.user.pull();
    world.user.write('instances/shop/shop.yaml', instance({ VALUE: 'new' }));
    const third = world.user.commit('untrusted again');
    await world.user.push();
    refusal = { commit: third, reason: 'untrusted', message: `commit ${third.slice(0, 12)} is signed by an unknown key` };
    expect(outcomeKinds(await agent.pass())).toEqual({ 'shop/site': 'refused', 'shop/shop': 'refused' });
  });

  it('GIVEN the refused change then verified WHEN polled THEN it is applied and the refusal leaves the status', async () => {
    mirror.pinned = undefined;
    refusal = undefined;
    expect(outcomeKinds(await agent.pass())).toEqual({ 'shop/site': 'complete', 'shop/shop': 'complete' });
    expect(await value('site')).toMatchObject({ value: 'two' });
    const site = await statusOf('site');
    expect(site?.state).toBe('COMPLETE');
    expect(site?.refusal).toBeUndefined();
  });

  it('GIVEN a restarted agent that knows no verified commit WHEN the tip is refused THEN only the instances it changes against their status are refused', async () => {
    await world.user.pull();
    world.user.write('instances/shop/blog.yaml', instance({ VALUE: 'blog-2' }));
    const unsigned = world.user.commit('unsigned blog change');
    await world.user.push();
    const mirror2 = new PinnedMirror({ dir: join(world.sandbox.dir, 'agent-restarted'), remote: { url: world.origin, auth: { kind: 'none' } }, env: world.sandbox.env });
    mirror2.noneVerified = true;
    const restarted = testAgent(mirror2, client, h.renderer, {
      coalesceMs: 20, commitRefusal: () => ({ commit: unsigned, reason: 'unsigned', message: `commit ${unsigned.slice(0, 12)} is not signed` }),
    });
    await restarted.start();
    try {
      const report = await restarted.pass();
      expect(outcomeKinds(report)).toEqual({ 'shop/blog': 'refused' });
      expect(await statusOf('blog')).toMatchObject({ state: 'REFUSED', refusal: { commit: unsigned } });
      // What runs (and what a later removal would load) is never the refused commit.
      expect((await statusOf('blog'))?.sourceCommit).not.toBe(unsigned);
      expect(await statusOf('site')).toMatchObject({ state: 'COMPLETE' });
      expect(await value('blog')).toMatchObject({ value: 'blog' });
    } finally {
      await restarted.stop();
    }
  });
});
