/**
 * Fenced status pushes (issue #11 item 3, STATUS-DESIGN part 2): a writer past its renew deadline
 * pushes nothing, every commit carries its lease term, and a writer that finds commits of a newer
 * term on the branch drops its unpushed commits instead of replaying them over the new leader's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { GitMirror, ObjectStore } from '../../src/git/index.js';
import { FenceLostError, LeaseFence } from '../../src/fencing/index.js';
import { StaleLeaseTermError, StatusWriter, type StatusUpdate } from '../../src/sync/status-writer.js';
import { git, gitSandbox, workClone, type GitSandbox } from '../helpers/git-server.js';

const update = (name: string, state: string): StatusUpdate => ({
  path: `status/prod/${name}.yaml`, content: `state: ${state}\n`, summary: `prod/${name}: ${state}`, trailers: [['Baton-Instance', `prod/${name}`], ['Baton-Event', 'observed']],
});

describe('fenced status pushes', () => {
  let sandbox: GitSandbox;
  let origin: string;
  let now = 0;
  const clock = (): number => now;

  beforeAll(async () => {
    sandbox = gitSandbox();
    origin = join(sandbox.dir, 'origin.git');
    execFileSync('git', ['init', '--bare', '--quiet', origin], { env: sandbox.env });
    const user = await workClone(sandbox.env, origin, join(sandbox.dir, 'user'));
    user.write('README.md', 'ops\n');
    user.commit('start');
    await user.push();
  });
  afterAll(() => sandbox.cleanup());

  async function writer(dir: string, term: number, onDropped?: (n: number) => void): Promise<{ writer: StatusWriter; fence: LeaseFence; mirror: GitMirror }> {
    const mirror = new GitMirror({ dir: join(sandbox.dir, dir), remote: { url: origin, auth: { kind: 'none' } }, env: sandbox.env });
    await mirror.init();
    await mirror.fetch('main');
    const fence = new LeaseFence({ renewDeadlineMs: 1000, now: clock });
    fence.renewed(now, term);
    const w = new StatusWriter({ mirror, store: new ObjectStore(mirror.dir), branch: 'main', author: { name: 'Baton', email: 'b@example.com' }, coalesceMs: 1_000_000, backoffMs: 1, fence, ...(onDropped ? { onDropped } : {}) });
    return { writer: w, fence, mirror };
  }
  const tip = (): string => git(sandbox.env, origin, 'rev-parse', 'main');

  it('GIVEN a fresh lease WHEN status is pushed THEN each commit carries the lease term', async () => {
    const { writer: w } = await writer('term', 4);
    w.submit(update('a', 'COMPLETE'));
    await w.flush();
    expect(git(sandbox.env, origin, 'log', '-1', '--format=%(trailers:key=Baton-Lease-Term,valueonly)', 'main')).toBe('4');
  });

  it('GIVEN a leader paused past its renew deadline WHEN it flushes on waking THEN nothing is pushed and the commits stay queued', async () => {
    const { writer: w, mirror } = await writer('paused', 5);
    const before = tip();
    w.submit(update('b', 'IN_PROGRESS'));
    now += 5000;
    await expect(w.flush()).rejects.toThrow(FenceLostError);
    expect(tip()).toBe(before);
    expect(await mirror.revParse(w.pendingRef)).toBeDefined();
  });

  it('GIVEN unpushed commits of an older term WHEN the branch gained commits of a newer term THEN they are dropped, not replayed', async () => {
    const dropped: number[] = [];
    const old = await writer('old-leader', 6, (n) => dropped.push(n));
    const successor = await writer('new-leader', 7);
    old.writer.submit(update('c', 'IN_PROGRESS'));
    old.writer.submit(update('c', 'COMPLETE'));
    successor.writer.submit(update('c', 'COMPLETE by the new leader'));
    await successor.writer.flush();
    const theirs = tip();
    await expect(old.writer.flush()).rejects.toThrow(StaleLeaseTermError);
    expect(dropped).toEqual([2]);
    expect(tip()).toBe(theirs);
    expect(await old.mirror.revParse(old.writer.pendingRef)).toBeUndefined();
  });

  it('GIVEN commits of an older term WHEN the branch moved without a newer term THEN they are replayed and pushed (nobody else led)', async () => {
    const user = await workClone(sandbox.env, origin, join(sandbox.dir, 'user2'));
    const w = await writer('same-leader', 7);
    w.writer.submit(update('d', 'COMPLETE'));
    user.write('notes.txt', 'x\n');
    user.commit('someone else');
    await user.push();
    await w.writer.flush();
    expect(git(sandbox.env, origin, 'log', '-2', '--format=%s', 'main').split('\n')).toEqual(['prod/d: COMPLETE', 'someone else']);
  });
});
