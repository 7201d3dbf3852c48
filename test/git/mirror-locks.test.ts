/**
 * Lock files left in the agent's bare clone by a process that died mid-operation (issue #11 item 5):
 * cleared at once when no process that may still run uses the clone, else once older than the git
 * timeout; never the fresh lock of a live user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GitMirror } from '../../src/git/index.js';
import { currentProcess } from '../../src/process-liveness.js';
import { gitSandbox, workClone, type GitSandbox, type WorkClone } from '../helpers/git-server.js';

describe('stale lock files in the bare clone', () => {
  let sandbox: GitSandbox;
  let origin: string;
  let tip: string;
  let user: WorkClone;

  beforeAll(async () => {
    sandbox = gitSandbox();
    origin = join(sandbox.dir, 'origin.git');
    execFileSync('git', ['init', '--bare', '--quiet', origin], { env: sandbox.env });
    user = await workClone(sandbox.env, origin, join(sandbox.dir, 'user'));
    user.write('README.md', 'x\n');
    tip = user.commit('start');
    await user.push();
  });
  afterAll(() => sandbox.cleanup());

  const mirrorAt = (dir: string, timeoutMs?: number): GitMirror =>
    new GitMirror({ dir: join(sandbox.dir, dir), remote: { url: origin, auth: { kind: 'none' } }, env: sandbox.env, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });

  /** The remote moves on: the next fetch must update the tracking ref (and so take its lock). */
  async function newCommit(): Promise<void> {
    user.write('README.md', `${Date.now()}\n`);
    tip = user.commit('moved on');
    await user.push();
  }

  /** What a process killed during a fetch leaves: its user record and a fresh lock on the tracking ref. */
  function crashedDuringFetch(mirror: { dir: string }): string {
    mkdirSync(join(mirror.dir, 'baton-users'), { recursive: true });
    const gone = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString());
    writeFileSync(join(mirror.dir, 'baton-users', `${gone}-deadbeef.json`), JSON.stringify({ ...currentProcess(), pid: gone, startTicks: 1 }));
    const lock = join(mirror.dir, 'refs', 'remotes', 'origin', 'main.lock');
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, '');
    return lock;
  }

  it('GIVEN a fresh ref lock left by a process killed during fetch WHEN the agent starts again THEN it is cleared at once and fetch works', async () => {
    // The clone the killed agent used (made by git here: no live process of this test is its user).
    const dir = join(sandbox.dir, 'restart');
    execFileSync('git', ['init', '--bare', '--quiet', dir], { env: sandbox.env });
    execFileSync('git', ['--git-dir', dir, 'fetch', '--quiet', origin, '+refs/heads/main:refs/remotes/origin/main'], { env: sandbox.env });
    const lock = crashedDuringFetch({ dir });
    await newCommit();
    const restarted = mirrorAt('restart');
    await restarted.init();
    expect(existsSync(lock)).toBe(false);
    expect(await restarted.fetch('main')).toBe(tip);
  });

  it('GIVEN a running agent WHEN another user of its clone dies mid-fetch THEN the next fetch clears the lock and succeeds', async () => {
    const agent = mirrorAt('running');
    await agent.init();
    await agent.fetch('main');
    const lock = crashedDuringFetch(agent);
    await newCommit();
    expect(await agent.fetch('main')).toBe(tip);
    expect(existsSync(lock)).toBe(false);
  });

  it('GIVEN another user of the clone that may be alive WHEN starting THEN its fresh lock stays and one older than the git timeout goes', async () => {
    const other = mirrorAt('shared', 1000);
    await other.init();
    const fresh = join(other.dir, 'refs', 'baton', 'fresh.lock');
    const old = join(other.dir, 'refs', 'baton', 'old.lock');
    mkdirSync(dirname(fresh), { recursive: true });
    writeFileSync(fresh, '');
    writeFileSync(old, '');
    const then = new Date(Date.now() - 5000);
    utimesSync(old, then, then);
    await mirrorAt('shared', 1000).init();
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(old)).toBe(false);
  });
});
