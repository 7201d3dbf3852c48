import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { GitMirror, ObjectStore } from '../../src/git/index.js';
import { StatusWriter, type StatusUpdate } from '../../src/sync/status-writer.js';
import { readHistory } from '../../src/sync/history.js';
import { summaryOf, trailersOf, type Transition } from '../../src/sync/trailers.js';
import { gitSandbox, startGitServer, workClone, type GitSandbox, type GitServer, type WorkClone } from '../helpers/git-server.js';

const author = { name: 'Baton Agent', email: 'agent@example.com' };

function update(name: string, result: string, event: Transition['event'] = 'plan-complete'): StatusUpdate {
  const t: Transition = { instance: { namespace: 'prod', name }, event, result, plan: 'deploy', sourceCommit: 'abc123', durationSeconds: 42 };
  return { path: `status/prod/${name}.yaml`, content: `state: ${result}\n`, summary: summaryOf(t), trailers: trailersOf(t) };
}

describe('writing status back to Git', () => {
  let sandbox: GitSandbox;
  let server: GitServer;
  let bob: WorkClone;

  beforeAll(async () => {
    sandbox = gitSandbox();
    server = await startGitServer({ env: sandbox.env });
    server.createBare('ops.git');
    bob = await workClone(sandbox.env, server.url('ops.git'), join(sandbox.dir, 'bob'));
    bob.write('instances/prod/redis.yaml', 'framework: redis\n');
    bob.commit('add redis');
    await bob.push();
  });
  afterAll(async () => {
    await server.close();
    sandbox.cleanup();
  });

  async function agent(dir: string, options: { maxAttempts?: number } = {}): Promise<{ mirror: GitMirror; writer: StatusWriter }> {
    const mirror = new GitMirror({ dir: join(sandbox.dir, dir), remote: { url: server.url('ops.git'), auth: { kind: 'none' } }, env: sandbox.env });
    await mirror.init();
    await mirror.fetch('main');
    const writer = new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author, coalesceMs: 50, backoffMs: 5, ...options });
    return { mirror, writer };
  }

  it('GIVEN several transitions of one instance in the coalescing window WHEN flushed THEN one commit each, in order, in one push', async () => {
    const { writer } = await agent('coalesce');
    const before = bob.git('rev-parse', 'HEAD');
    writer.submit(update('redis', 'IN_PROGRESS', 'plan-started'));
    writer.submit(update('redis', 'COMPLETE'));
    await writer.flush();
    await bob.pull();
    expect(bob.git('log', '--format=%s', `${before}..HEAD`).split('\n')).toEqual(['prod/redis: deploy COMPLETE in 42s', 'prod/redis: deploy started']);
    expect(bob.git('log', '-1', '--format=%an <%ae>')).toBe('Baton Agent <agent@example.com>');
    expect(bob.git('log', '-1', '--format=%(trailers:key=Baton-Result,valueonly)')).toBe('COMPLETE');
    expect(bob.git('show', 'HEAD~1:status/prod/redis.yaml')).toBe('state: IN_PROGRESS');
    expect(bob.git('show', 'HEAD:status/prod/redis.yaml')).toBe('state: COMPLETE');
    expect(writer.commits).toBe(2);
    expect(writer.pushes).toBe(1);
  });

  it('GIVEN a transition that leaves the file as it was WHEN flushed THEN it is still committed', async () => {
    const { writer } = await agent('same-content');
    writer.submit(update('redis', 'COMPLETE', 'observed'));
    writer.submit(update('redis', 'COMPLETE', 'observed'));
    await writer.flush();
    expect(writer.commits).toBe(2);
    await bob.pull();
  });

  it('GIVEN someone pushed meanwhile WHEN the status push is rejected THEN it is rebuilt on the new tip and retried, keeping their commit', async () => {
    const { writer } = await agent('rejected');
    bob.write('instances/prod/cache.yaml', 'framework: redis\n');
    const theirs = bob.commit('add cache');
    await bob.push();
    writer.submit(update('cache', 'IN_PROGRESS', 'plan-started'));
    await writer.flush();
    await bob.pull();
    expect(bob.git('log', '-1', '--format=%s')).toBe('prod/cache: deploy started');
    expect(bob.git('rev-parse', 'HEAD~1')).toBe(theirs);
    expect(writer.pushes).toBe(1);
  });

  it('GIVEN a rejected push WHEN it is tried again THEN the pause comes before the fetch, and the push follows the fetch at once', async () => {
    const { mirror } = await agent('pause-first');
    const ops: string[] = [];
    const fetch = mirror.fetch.bind(mirror);
    const push = mirror.push.bind(mirror);
    mirror.fetch = async (branch) => { ops.push('fetch'); return fetch(branch); };
    mirror.push = async (sha, branch) => { ops.push('push'); return push(sha, branch); };
    const writer = new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author, coalesceMs: 50, backoffMs: 5, sleep: async () => { ops.push('pause'); } });
    bob.write('instances/prod/queue.yaml', 'framework: redis\n');
    bob.commit('add queue');
    await bob.push();
    writer.submit(update('queue', 'IN_PROGRESS', 'plan-started'));
    await writer.flush();
    // Pausing between the fetch and the push left other shard members time to push and reject this one again.
    expect(ops).toEqual(['push', 'pause', 'fetch', 'push']);
    await bob.pull();
    expect(bob.git('log', '-1', '--format=%s')).toBe('prod/queue: deploy started');
  });

  it('GIVEN a rejected push of commits this writer made WHEN they are rebuilt on the fetched tip THEN from memory: no git command besides the fetch and the push, same commits', async () => {
    const { mirror } = await agent('rebuild-from-memory');
    const ops: string[] = [];
    const read = mirror.read.bind(mirror);
    const fetch = mirror.fetch.bind(mirror);
    const push = mirror.push.bind(mirror);
    mirror.read = async (args) => { ops.push(args[0] ?? ''); return read(args); };
    mirror.fetch = async (branch) => { ops.push('fetch'); return fetch(branch); };
    mirror.push = async (sha, branch) => { ops.push('push'); return push(sha, branch); };
    const writer = new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author, coalesceMs: 50, backoffMs: 5 });
    bob.write('instances/prod/memory.yaml', 'framework: redis\n');
    const theirs = bob.commit('add memory');
    await bob.push();
    writer.submit(update('memory', 'IN_PROGRESS', 'plan-started'));
    writer.submit(update('memory', 'COMPLETE'));
    await writer.flush();
    // Listing and re-reading each unpushed commit (rev-list, log, a commit and tree read each) made a
    // member that lost races slower to try again the more commits it had waiting.
    expect(ops).toEqual(['push', 'fetch', 'push']);
    expect(writer.timings.replayedCommits).toBe(2);
    await bob.pull();
    expect(bob.git('log', '-3', '--format=%s').split('\n')).toEqual(['prod/memory: deploy COMPLETE in 42s', 'prod/memory: deploy started', 'add memory']);
    expect(bob.git('rev-parse', 'HEAD~2')).toBe(theirs);
    expect(bob.git('show', 'HEAD~1:status/prod/memory.yaml')).toBe('state: IN_PROGRESS');
    expect(bob.git('show', 'HEAD:status/prod/memory.yaml')).toBe('state: COMPLETE');
    expect(bob.git('show', 'HEAD:instances/prod/memory.yaml')).toBe('framework: redis');
  });

  it('GIVEN a writer whose push was rejected WHEN transitions keep arriving within its pace THEN each is committed at once, in order, and they share one later push', async () => {
    const { mirror } = await agent('paced');
    // A pace far longer than the test: the paced push never fires on its own here; flush() pushes.
    const writer = new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author, coalesceMs: 60_000, backoffMs: 5, paceMs: 60_000, paceMaxMs: 60_000 });
    try {
      bob.write('instances/prod/paced.yaml', 'framework: redis\n');
      bob.commit('add paced');
      await bob.push();
      writer.submit(update('paced', 'IN_PROGRESS', 'plan-started'));
      await writer.flush();
      expect(writer.timings.rejections).toBe(1);
      expect(writer.pushes).toBe(1);
      // A member that lost a race pushed every transition on its own and raced again each time.
      writer.submit(update('paced', 'IN_PROGRESS', 'phase-complete'));
      await writer.flushIfPending();
      writer.submit(update('paced', 'COMPLETE'));
      await writer.flushIfPending();
      expect(writer.pushes).toBe(1);
      const pending = await mirror.revParse(writer.pendingRef);
      expect(pending).toBeDefined();
      await writer.flush();
      expect(writer.pushes).toBe(2);
      await bob.pull();
      expect(bob.git('log', '-4', '--format=%s').split('\n')).toEqual(['prod/paced: deploy COMPLETE in 42s', 'prod/paced: deploy phase ? complete', 'prod/paced: deploy started', 'add paced']);
      expect(bob.git('rev-parse', 'HEAD')).toBe(pending);
    } finally {
      writer.close();
    }
  });

  it('GIVEN a writer among several pushing to the branch WHEN its push went through THEN its next paced push leaves the branch to the others first; alone it pushes at once', async () => {
    const { mirror } = await agent('yielding');
    let pushers = 4;
    // A yield far longer than the test: the yielded push never fires on its own here; flush() pushes.
    const writer = new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author, coalesceMs: 60_000, backoffMs: 5, pushers: () => pushers, yieldFloorMs: 60_000 });
    try {
      bob.write('instances/prod/yielding.yaml', 'framework: redis\n');
      bob.commit('add yielding');
      await bob.push();
      await mirror.fetch('main');
      writer.submit(update('yielding', 'IN_PROGRESS', 'plan-started'));
      await writer.flushIfPending();
      expect(writer.pushes).toBe(1);
      expect(writer.timings.rejections).toBe(0);
      // The winner of the last race pushed again at once each time, and the other members never got in.
      writer.submit(update('yielding', 'IN_PROGRESS', 'phase-complete'));
      await writer.flushIfPending();
      expect(writer.pushes).toBe(1);
      expect(await mirror.revParse(writer.pendingRef)).toBeDefined();
      await writer.flush();
      expect(writer.pushes).toBe(2);
      // Alone on the branch: no yield.
      pushers = 1;
      writer.submit(update('yielding', 'COMPLETE'));
      await writer.flushIfPending();
      expect(writer.pushes).toBe(3);
      await bob.pull();
      expect(bob.git('log', '-4', '--format=%s').split('\n')).toEqual(['prod/yielding: deploy COMPLETE in 42s', 'prod/yielding: deploy phase ? complete', 'prod/yielding: deploy started', 'add yielding']);
    } finally {
      writer.close();
    }
  });

  it('GIVEN an agent whose push kept failing WHEN a new agent starts on the same clone THEN the queued commits are pushed, none lost', async () => {
    const first = await agent('restart', { maxAttempts: 1 });
    bob.write('README.md', 'moved on\n');
    bob.commit('someone else');
    await bob.push();
    first.writer.submit(update('redis', 'IN_PROGRESS', 'plan-started'));
    await first.writer.flush().catch(() => undefined);
    first.writer.submit(update('redis', 'COMPLETE'));
    await first.writer.flush().catch(() => undefined);
    expect(await first.mirror.revParse('refs/baton/pending/main')).toBeDefined();

    const second = await agent('restart');
    await second.writer.flush();
    await bob.pull();
    const subjects = bob.git('log', '-3', '--format=%s').split('\n');
    expect(subjects).toEqual(['prod/redis: deploy COMPLETE in 42s', 'prod/redis: deploy started', 'someone else']);
    expect(await second.mirror.revParse('refs/baton/pending/main')).toBeUndefined();
  });

  it('GIVEN status commits WHEN the history is read THEN entries come from trailers, newest first, filtered by instance', async () => {
    const { mirror } = await agent('history');
    const all = await readHistory(mirror, { ref: 'refs/remotes/origin/main' });
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(all[0]).toMatchObject({ instance: 'prod/redis', plan: 'deploy', result: 'COMPLETE', event: 'plan-complete', sourceCommit: 'abc123' });
    const cache = await readHistory(mirror, { ref: 'refs/remotes/origin/main', instance: 'cache' });
    expect(cache.map((e) => e.summary)).toEqual(['prod/cache: deploy started']);
    expect(await readHistory(mirror, { ref: 'refs/remotes/origin/main', since: '2030-01-01' })).toEqual([]);
  });
});
