import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { GitMirror, ObjectStore } from '../../src/git/index.js';
import { StatusWriter, type StatusUpdate } from '../../src/sync/status-writer.js';
import { readHistory } from '../../src/sync/history.js';
import { summaryOf, trailersOf, type Transition } from '../../src/sync/trailers.js';
import { checkHistory } from '../helpers/transitions.js';
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

  async function agent(dir: string, options: { maxAttempts?: number; maxTransitionsPerCommit?: number } = {}): Promise<{ mirror: GitMirror; writer: StatusWriter }> {
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
    // The first agent is gone: its retry timer must not push beside the second (on a loaded machine it
    // fired during the second's flush, both pushed the same rebuilt commits, and the one whose push lost
    // that race rebuilt them once more: every transition twice).
    first.writer.close();

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

  it('GIVEN push settings WHEN the writer pushes THEN its git push runs with them (a value git cannot read fails it)', async () => {
    const { mirror } = await agent('push-config');
    const writer = new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author, coalesceMs: 50, backoffMs: 5, maxAttempts: 1, pushConfig: ['pack.window=many'] });
    try {
      writer.submit(update('configured', 'IN_PROGRESS', 'plan-started'));
      await expect(writer.flush()).rejects.toThrow(/pack\.window/);
    } finally {
      writer.close();
    }
  });

  describe('several transitions per commit (a shard member with a backlog)', () => {
    const run = (name: string, event: Transition['event'], result: string, phase?: string): StatusUpdate => {
      const t: Transition = { instance: { namespace: 'batch', name }, event, result, plan: 'deploy', runId: `run-${name}`, sourceCommit: userCommit(), ...(phase ? { phase } : {}) };
      return { path: `status/batch/${name}.yaml`, content: `state: ${result}\n`, summary: summaryOf(t), trailers: trailersOf(t) };
    };
    /** The newest commit of the branch that is not a status commit (what a transition's source commit names). */
    const userCommit = (): string => bob.git('log', '-1', '--format=%H', '--invert-grep', '--grep=Baton-Status-File');
    const backlog = (): StatusUpdate[] => [
      run('a', 'plan-started', 'IN_PROGRESS'), run('b', 'plan-started', 'IN_PROGRESS'), run('a', 'phase-complete', 'IN_PROGRESS', 'main'),
      run('b', 'phase-complete', 'IN_PROGRESS', 'main'), run('a', 'plan-complete', 'COMPLETE'),
    ];

    it('GIVEN a backlog of transitions of two instances WHEN flushed THEN one commit records each transition once, in order, with each file at its last state, and every reader sees each transition once', async () => {
      const { writer } = await agent('batched', { maxTransitionsPerCommit: 64 });
      const before = bob.git('rev-parse', 'HEAD');
      for (const u of backlog()) writer.submit(u);
      await writer.flush();
      await bob.pull();
      // One commit per transition before: 5 commits, 5 root, status/ and status/batch/ trees.
      expect(bob.git('rev-list', '--count', `${before}..HEAD`)).toBe('1');
      expect(writer.commits).toBe(1);
      expect(writer.transitions).toBe(5);
      expect(bob.git('log', '-1', '--format=%s')).toBe('status: 5 transitions of 2 instances');
      expect(bob.git('show', 'HEAD:status/batch/a.yaml')).toBe('state: COMPLETE');
      expect(bob.git('show', 'HEAD:status/batch/b.yaml')).toBe('state: IN_PROGRESS');
      // git's own trailer parsing lists a commit's transitions in order, key by key.
      expect(bob.git('log', '-1', '--format=%(trailers:key=Baton-Instance,valueonly,separator=%x2C) %(trailers:key=Baton-Event,valueonly,separator=%x2C)'))
        .toBe('batch/a,batch/b,batch/a,batch/b,batch/a plan-started,plan-started,phase-complete,phase-complete,plan-complete');
      expect(bob.git('log', '-1', '--format=%(trailers:key=Baton-Status-File,valueonly,separator=%x2C)')).toBe('status/batch/a.yaml,status/batch/b.yaml,status/batch/a.yaml,status/batch/b.yaml,status/batch/a.yaml');

      const mirror = (await agent('batched-reader')).mirror;
      const history = await readHistory(mirror, { ref: 'refs/remotes/origin/main', instance: 'batch/a' });
      expect(history.map((e) => [e.summary, e.event])).toEqual([
        ['batch/a: deploy COMPLETE', 'plan-complete'], ['batch/a: deploy phase main complete', 'phase-complete'], ['batch/a: deploy started', 'plan-started'],
      ]);
      expect(new Set(history.map((e) => e.commit)).size).toBe(1);
      expect((await readHistory(mirror, { ref: 'refs/remotes/origin/main', instance: 'b' })).map((e) => e.event)).toEqual(['phase-complete', 'plan-started']);
      expect((await readHistory(mirror, { ref: 'refs/remotes/origin/main', limit: 2 })).map((e) => e.summary)).toEqual(['batch/a: deploy COMPLETE', 'batch/b: deploy phase main complete']);

      const check = checkHistory(sandbox.env, join(server.root, 'ops.git'), { instances: ['batch/a', 'batch/b'] });
      expect(check.defects).toEqual([]);
      expect(check.commits.map((c) => `${c.instance} ${c.event}${c.phase ? ` ${c.phase}` : ''}`)).toEqual([
        'batch/a plan-started', 'batch/b plan-started', 'batch/a phase-complete main', 'batch/b phase-complete main', 'batch/a plan-complete',
      ]);
      expect(check.runs.get('run-a')?.map((c) => c.event)).toEqual(['plan-started', 'phase-complete', 'plan-complete']);
    });

    it('GIVEN more queued than one commit records and a rejected push WHEN flushed THEN consecutive commits of at most that many, in order, rebuilt from memory', async () => {
      const { writer } = await agent('batched-chunks', { maxTransitionsPerCommit: 2 });
      bob.write('instances/prod/chunks.yaml', 'framework: redis\n');
      const before = bob.commit('add chunks');
      await bob.push();
      for (const u of backlog()) writer.submit({ ...u, path: u.path.replace('batch/', 'chunks/') });
      await writer.flush();
      expect(writer.timings.rejections).toBe(1);
      expect(writer.timings.replayedCommits).toBe(3);
      await bob.pull();
      expect(bob.git('show', 'HEAD~1:status/chunks/a.yaml')).toBe('state: IN_PROGRESS');
      expect(bob.git('show', 'HEAD:status/chunks/a.yaml')).toBe('state: COMPLETE');
      expect(bob.git('show', 'HEAD:status/chunks/b.yaml')).toBe('state: IN_PROGRESS');
      expect(bob.git('log', '--reverse', '--format=%s', `${before}..HEAD`).split('\n')).toEqual(['status: 2 transitions of 2 instances', 'status: 2 transitions of 2 instances', 'batch/a: deploy COMPLETE']);
      expect(bob.git('log', '--reverse', '--format=%(trailers:key=Baton-Event,valueonly,separator=%x2C)', `${before}..HEAD`).split('\n'))
        .toEqual(['plan-started,plan-started', 'phase-complete,phase-complete', 'plan-complete']);
      expect(writer.pushes).toBe(1);
    });

    it('GIVEN batched commits whose push is rejected WHEN rebuilt from memory, or by a new agent on the same clone from git THEN every file and every transition lands once', async () => {
      const first = await agent('batched-restart', { maxAttempts: 1, maxTransitionsPerCommit: 3 });
      bob.write('README.md', 'moved on again\n');
      const theirs = bob.commit('someone else again');
      await bob.push();
      for (const u of backlog()) first.writer.submit({ ...u, path: u.path.replace('batch/', 'restart/') });
      await first.writer.flush().catch(() => undefined);
      expect(first.writer.timings.rejections).toBe(1);
      expect(await first.mirror.revParse(first.writer.pendingRef)).toBeDefined();
      // The first process is gone: its retry timer must not push beside the second (see 'restart' above).
      first.writer.close();

      // A new process: its writer knows nothing of these commits and reads them back from the clone.
      const second = await agent('batched-restart', { maxTransitionsPerCommit: 3 });
      bob.write('README.md', 'and again\n');
      const yet = bob.commit('yet another');
      await bob.push();
      await second.writer.flush();
      await bob.pull();
      expect(bob.git('rev-parse', 'HEAD~2')).toBe(yet);
      expect(bob.git('rev-parse', 'HEAD~3')).toBe(theirs);
      expect(bob.git('log', '--reverse', '--format=%(trailers:key=Baton-Event,valueonly,separator=%x2C)', `${yet}..HEAD`).split('\n'))
        .toEqual(['plan-started,plan-started,phase-complete', 'phase-complete,plan-complete']);
      expect(bob.git('show', 'HEAD:status/restart/a.yaml')).toBe('state: COMPLETE');
      expect(bob.git('show', 'HEAD:status/restart/b.yaml')).toBe('state: IN_PROGRESS');
      expect(bob.git('show', 'HEAD~1:status/restart/a.yaml')).toBe('state: IN_PROGRESS');
      expect(bob.git('show', 'HEAD:README.md')).toBe('and again');
      expect(await second.mirror.revParse(second.writer.pendingRef)).toBeUndefined();
    });
  });
});
