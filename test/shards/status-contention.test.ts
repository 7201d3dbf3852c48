/**
 * Four shard members' status writers push to one branch at once (a bare repository behind git's smart
 * HTTP server): every transition of every member reaches the branch exactly once, in each member's
 * order, and nothing anyone pushed is lost (pushes are never forced: rejected ones are rebuilt on the
 * new tip and retried; what is still rejected after the attempts stays queued and is tried again on its
 * own, after growing pauses; a stopping writer keeps trying within its shutdown time).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitMirror, ObjectStore } from '../../src/git/index.js';
import { StatusWriter, type StatusUpdate } from '../../src/sync/status-writer.js';
import { summaryOf, trailersOf, type Transition } from '../../src/sync/trailers.js';
import { gitAsync, gitSandbox, startGitServer, workClone, type GitSandbox, type GitServer } from '../helpers/git-server.js';
import { until } from '../helpers/wait.js';

const MEMBERS = 4;
const ROUNDS = 6;

function update(member: number, round: number): StatusUpdate {
  const name = `app-${member}-${round % 3}`;
  const t: Transition = { instance: { namespace: 'shard', name }, event: 'observed', result: 'COMPLETE', plan: 'deploy', sourceCommit: 'abc123' };
  return { path: `status/shard/${name}.yaml`, content: `state: COMPLETE\nround: ${round}\n`, summary: `${summaryOf(t)} (member ${member} round ${round})`, trailers: trailersOf(t) };
}

describe('status commits of four members racing to one branch', () => {
  let sandbox: GitSandbox;
  let server: GitServer;

  beforeAll(async () => {
    sandbox = gitSandbox();
    server = await startGitServer({ env: sandbox.env });
    server.createBare('ops.git');
    const user = await workClone(sandbox.env, server.url('ops.git'), join(sandbox.dir, 'user'));
    user.write('README.md', 'ops\n');
    user.commit('start');
    await user.push();
  });
  afterAll(async () => {
    await server.close();
    sandbox.cleanup();
  });

  /** A mirror whose first `losses` pushes each lose the race to another member (its commit lands just before). */
  const contended = async (dir: string, losses: number): Promise<GitMirror> => {
    const origin = join(server.root, 'ops.git');
    class Contended extends GitMirror {
      override async push(sha: string, branch: string): Promise<void> {
        if (losses-- > 0) {
          const tip = (await gitAsync(sandbox.env, origin, 'rev-parse', branch)).trim();
          const theirs = (await gitAsync(sandbox.env, origin, 'commit-tree', `${tip}^{tree}`, '-p', tip, '-m', `another member ${losses}`)).trim();
          await gitAsync(sandbox.env, origin, 'update-ref', `refs/heads/${branch}`, theirs, tip);
        }
        return super.push(sha, branch);
      }
    }
    const mirror = new Contended({ dir: join(sandbox.dir, dir), remote: { url: server.url('ops.git'), auth: { kind: 'none' } }, env: sandbox.env });
    await mirror.init();
    await mirror.fetch('main');
    return mirror;
  };

  it(`GIVEN ${MEMBERS} writers WHEN each commits and pushes ${ROUNDS} rounds at the same time THEN all ${MEMBERS * ROUNDS} commits are on the branch once, in each writer's order`, async () => {
    const writers = await Promise.all(Array.from({ length: MEMBERS }, async (_, m) => {
      const mirror = new GitMirror({ dir: join(sandbox.dir, `member-${m}`), remote: { url: server.url('ops.git'), auth: { kind: 'none' } }, env: sandbox.env });
      await mirror.init();
      await mirror.fetch('main');
      return new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author: { name: `member ${m}`, email: `m${m}@example.com` }, coalesceMs: 5, backoffMs: 20 });
    }));
    let retries = 0;
    await Promise.all(writers.map(async (writer, m) => {
      for (let round = 0; round < ROUNDS; round++) {
        writer.submit(update(m, round));
        // A push still rejected after all attempts stays queued: the next flush pushes it (as the agent's next pass does).
        for (let attempt = 0; ; attempt++) {
          try {
            await writer.flush();
            break;
          } catch (err) {
            retries++;
            if (attempt > 5) throw err;
          }
        }
      }
    }));
    const clone = join(sandbox.dir, 'check');
    await gitAsync(sandbox.env, sandbox.dir, 'clone', '--quiet', '--bare', server.url('ops.git'), clone);
    const subjects = (await gitAsync(sandbox.env, clone, 'log', '--reverse', '--format=%s', 'main')).split('\n');
    for (let m = 0; m < MEMBERS; m++) {
      const mine = subjects.filter((s) => s.includes(`(member ${m} `)).map((s) => s.slice(s.indexOf('(member')));
      expect(mine).toEqual(Array.from({ length: ROUNDS }, (_, round) => `(member ${m} round ${round})`));
    }
    expect(subjects.filter((s) => s.includes('(member '))).toHaveLength(MEMBERS * ROUNDS);
    expect(subjects[0]).toBe('start');
    // The last round's content of every file is on the tip.
    for (let m = 0; m < MEMBERS; m++) {
      expect(await gitAsync(sandbox.env, clone, 'show', `main:status/shard/app-${m}-${(ROUNDS - 1) % 3}.yaml`)).toContain(`round: ${ROUNDS - 1}`);
    }
    const pushes = writers.reduce((n, w) => n + w.pushes, 0);
    expect(pushes).toBeGreaterThanOrEqual(MEMBERS);
    console.log(`status contention: ${MEMBERS * ROUNDS} commits in ${pushes} pushes, ${retries} flushes that gave up and were retried`);
  }, 120_000);

  it('GIVEN a writer whose pushes are rejected more often than its attempts WHEN nothing else flushes it THEN it tries again on its own until every transition is on the branch, one commit each', async () => {
    const origin = join(server.root, 'ops.git');
    const mirror = await contended('contended', 9);
    const gaveUp: number[] = [];
    const writer = new StatusWriter({
      mirror, store: new ObjectStore(mirror.dir), branch: 'main', author: { name: 'contended', email: 'c@example.com' },
      coalesceMs: 5, backoffMs: 1, maxAttempts: 4, retryMs: 20, onGiveUp: (_err, delay) => gaveUp.push(delay),
    });
    try {
      // Transitions submitted as an agent's workers do: the coalescing timer flushes them, nobody awaits it.
      writer.submit(update(9, 0));
      writer.submit(update(9, 1));
      const subjects = async (): Promise<string[]> => (await gitAsync(sandbox.env, origin, 'log', '--format=%s', 'main')).split('\n').filter((x) => x.includes('(member 9 '));
      await until(async () => (await subjects()).length >= 2, 90_000, 'both transitions on the branch', 50);
      // A transition arriving while the retries go on joins the next push.
      writer.submit(update(9, 2));
      await until(async () => (await subjects()).length >= 3, 90_000, 'the third on the branch', 50);
      expect((await subjects()).reverse().map((x) => x.slice(x.indexOf('(member')))).toEqual(['(member 9 round 0)', '(member 9 round 1)', '(member 9 round 2)']);
      expect(gaveUp.length).toBeGreaterThanOrEqual(2);
      await until(() => !writer.pending, 30_000, 'nothing left pending');
    } finally {
      writer.close();
    }
  }, 240_000);

  it('GIVEN a stopping writer whose pushes keep being rejected WHEN it settles THEN it keeps trying (within its time) until nothing is left unpushed', async () => {
    const origin = join(server.root, 'ops.git');
    const mirror = await contended('settling', 7);
    const writer = new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author: { name: 'settling', email: 's@example.com' }, coalesceMs: 5, backoffMs: 1, maxAttempts: 3, retryMs: 10 });
    try {
      writer.submit(update(8, 0));
      await writer.settle(120_000);
      expect(writer.pending).toBe(false);
      expect((await gitAsync(sandbox.env, origin, 'log', '--format=%s', 'main')).split('\n').filter((x) => x.includes('(member 8 '))).toHaveLength(1);
    } finally {
      writer.close();
    }
  }, 240_000);
});
