/**
 * Status writers of four shard members taking turns on the push turn Lease (simulated API server),
 * pushing to one real bare repository: every transition lands once, in each writer's order, with no
 * push rejected; and a writer with a large backlog whose pushes would lose every race (another member
 * always pushes between its fetch and its push, as a slow rebuild did) lands within a bounded number of
 * the others' pushes instead of starving.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitMirror, ObjectStore } from '../../src/git/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { LeasePushTurn, pushTurnLeaseName, type HeldTurn, type PushTurn } from '../../src/sync/push-turn/index.js';
import { StatusWriter, type StatusUpdate } from '../../src/sync/status-writer.js';
import { summaryOf, trailersOf, type Transition } from '../../src/sync/trailers.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { gitAsync, gitSandbox, workClone, type GitSandbox } from '../helpers/git-server.js';
import { until } from '../helpers/wait.js';

const NS = 'baton-system';
const MEMBERS = 4;

function update(member: number, i: number): StatusUpdate {
  const name = `app-${member}-${i % 5}`;
  const t: Transition = { instance: { namespace: 'shard', name }, event: 'observed', result: 'COMPLETE', plan: 'deploy', sourceCommit: 'abc123' };
  return { path: `status/shard/${name}.yaml`, content: `state: COMPLETE\nround: ${i}\n`, summary: `${summaryOf(t)} (member ${member} #${i})`, trailers: trailersOf(t) };
}

/** A turn that says whether its member is waiting for it now. */
class WatchedTurn implements PushTurn {
  waiting = false;
  constructor(private readonly inner: PushTurn) {}
  async take(signal?: AbortSignal): Promise<HeldTurn> {
    this.waiting = true;
    try {
      return await this.inner.take(signal);
    } finally {
      this.waiting = false;
    }
  }
  leave(): Promise<void> {
    return this.inner.leave();
  }
}

describe('status writers taking push turns', () => {
  let sandbox: GitSandbox;
  let cluster: TestCluster;
  let client: HttpKubeClient;
  let repos = 0;

  beforeAll(async () => {
    sandbox = gitSandbox();
    cluster = await startTestCluster();
    client = await createKubeClient({ url: cluster.url });
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterAll(async () => {
    client.close();
    await cluster.stop();
    sandbox.cleanup();
  });

  /** A fresh bare origin with one commit. */
  const origin = async (): Promise<string> => {
    const dir = join(sandbox.dir, `origin-${++repos}.git`);
    await gitAsync(sandbox.env, sandbox.dir, 'init', '--bare', '--quiet', dir);
    const user = await workClone(sandbox.env, dir, join(sandbox.dir, `user-${repos}`));
    user.write('README.md', 'ops\n');
    user.commit('start');
    await user.push();
    return dir;
  };
  const subjectsOf = async (repo: string): Promise<string[]> => (await gitAsync(sandbox.env, repo, 'log', '--reverse', '--format=%s%n%b', 'main')).split('\n');
  /** The transitions of `member` on the branch (one per `(member N #i)` line; a commit may record several). */
  const landed = async (repo: string, member: number): Promise<string[]> =>
    (await subjectsOf(repo)).filter((s) => s.includes(`(member ${member} #`)).map((s) => s.slice(s.indexOf('(member')));

  it(`GIVEN ${MEMBERS} writers taking turns WHEN they all push at once THEN every transition is on the branch once, in each writer's order, and no push was rejected`, async () => {
    const repo = await origin();
    const name = pushTurnLeaseName(`w${repos}`);
    const rounds = 5;
    const writers = await Promise.all(Array.from({ length: MEMBERS }, async (_, m) => {
      const mirror = new GitMirror({ dir: join(sandbox.dir, `r${repos}-member-${m}`), remote: { url: repo, auth: { kind: 'none' } }, env: sandbox.env });
      await mirror.init();
      await mirror.fetch('main');
      // A long hold time: no holder is counted gone here, so any rejection would be a flaw of the turns.
      const turn = new LeasePushTurn({ client, namespace: NS, name, memberId: `m${m}`, pollMs: 10, holdMs: 120_000 });
      return new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author: { name: `member ${m}`, email: `m${m}@example.com` }, coalesceMs: 5, maxTransitionsPerCommit: 64, turn });
    }));
    await Promise.all(writers.map(async (writer, m) => {
      for (let i = 0; i < rounds; i++) {
        writer.submit(update(m, 2 * i));
        writer.submit(update(m, 2 * i + 1));
        await writer.flush();
      }
    }));
    for (let m = 0; m < MEMBERS; m++) {
      expect(await landed(repo, m)).toEqual(Array.from({ length: 2 * rounds }, (_, i) => `(member ${m} #${i})`));
    }
    expect(writers.reduce((n, w) => n + w.timings.rejections, 0)).toBe(0);
    expect(writers.reduce((n, w) => n + w.timings.turns, 0)).toBeGreaterThanOrEqual(MEMBERS);
    for (const w of writers) w.close();
  }, 120_000);

  it('GIVEN a writer with a large backlog that loses every race it can lose WHEN three others keep pushing THEN its backlog lands within a bounded number of their pushes, once and in order', async () => {
    const repo = await origin();
    const name = pushTurnLeaseName(`w${repos}`);
    /** Pushes of the other writers that went through, and how many there were when the backlog landed. */
    let othersPushed = 0;
    let landedAfter: number | undefined;
    const turnsOf: WatchedTurn[] = [];
    const done = new Set<number>();
    const mirrors = await Promise.all(Array.from({ length: MEMBERS }, async (_, m) => {
      class Raced extends GitMirror {
        private fetchedAt = 0;
        override async fetch(branch: string): Promise<string | undefined> {
          const tip = await super.fetch(branch);
          this.fetchedAt = othersPushed;
          return tip;
        }
        override async push(sha: string, branch: string, config: readonly string[] = []): Promise<void> {
          if (m === 0) {
            // The backlogged writer is slow to rebuild: when another member can push before it, one does.
            const others = Array.from({ length: MEMBERS - 1 }, (_x, i) => i + 1);
            await until(() => othersPushed > this.fetchedAt || others.every((o) => done.has(o) || turnsOf[o]?.waiting === true), 60_000, 'another push, or nobody else able to push', 2);
          }
          await super.push(sha, branch, config);
          if (m !== 0) othersPushed += 1;
          else landedAfter = othersPushed; // its only transitions are the backlog: all on the branch now
        }
      }
      const mirror = new Raced({ dir: join(sandbox.dir, `r${repos}-member-${m}`), remote: { url: repo, auth: { kind: 'none' } }, env: sandbox.env });
      await mirror.init();
      await mirror.fetch('main');
      return mirror;
    }));
    const writers = mirrors.map((mirror, m) => {
      const turn = new WatchedTurn(new LeasePushTurn({ client, namespace: NS, name, memberId: `m${m}`, pollMs: 10, holdMs: 120_000 }));
      turnsOf[m] = turn;
      return new StatusWriter({
        mirror, store: new ObjectStore(mirror.dir), branch: 'main', author: { name: `member ${m}`, email: `m${m}@example.com` },
        coalesceMs: 5, backoffMs: 5, retryMs: 20, maxTransitionsPerCommit: 64, turn,
      });
    });
    const backlog = 300;
    const [slow, ...fast] = writers;
    for (let i = 0; i < backlog; i++) slow!.submit(update(0, i));
    const slowDone = slow!.flush().catch(() => undefined);
    const rounds = 15;
    await Promise.all(fast.map(async (writer, f) => {
      const m = f + 1;
      for (let i = 0; i < rounds && landedAfter === undefined; i++) {
        writer.submit(update(m, i));
        await writer.flush().catch(() => undefined);
      }
      done.add(m);
    }));
    await slowDone;
    await slow!.settle(120_000);
    for (const w of fast) await w.settle(60_000);
    // First come, first served: at most the other members' turns before its own, and one more round.
    expect(landedAfter).toBeDefined();
    expect(landedAfter!).toBeLessThanOrEqual(2 * (MEMBERS - 1));
    expect(await landed(repo, 0)).toEqual(Array.from({ length: backlog }, (_, i) => `(member 0 #${i})`));
    for (let m = 1; m < MEMBERS; m++) {
      const mine = await landed(repo, m);
      expect(mine).toEqual(Array.from({ length: mine.length }, (_, i) => `(member ${m} #${i})`));
    }
    for (const w of writers) w.close();
  }, 240_000);
});
