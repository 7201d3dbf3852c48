/**
 * Four shard members' status writers push to one branch at once (a bare repository behind git's smart
 * HTTP server): every transition of every member reaches the branch exactly once, in each member's
 * order, and nothing anyone pushed is lost (pushes are never forced: rejected ones are rebuilt on the
 * new tip and retried; what is still rejected after the attempts stays queued for the next flush).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitMirror, ObjectStore } from '../../src/git/index.js';
import { StatusWriter, type StatusUpdate } from '../../src/sync/status-writer.js';
import { summaryOf, trailersOf, type Transition } from '../../src/sync/trailers.js';
import { gitAsync, gitSandbox, startGitServer, workClone, type GitSandbox, type GitServer } from '../helpers/git-server.js';

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
});
