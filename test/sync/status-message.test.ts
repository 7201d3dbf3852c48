import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { GitMirror } from '../../src/git/index.js';
import { readHistory } from '../../src/sync/history.js';
import { formatStatusMessage, transitionsOfMessage } from '../../src/sync/status-message.js';
import { checkHistory } from '../helpers/transitions.js';
import { gitSandbox, type GitSandbox } from '../helpers/git-server.js';

/**
 * The readers of the audit record (`baton history`, checkHistory) read both forms of a status commit
 * (docs/agent.md, "Commits: every transition once"): the commits here are written by hand, in the documented format, so
 * that the readers are checked against the format rather than against the writer.
 */
const one = (source: string): string => [
  'shop/a: deploy started', '',
  'Baton-Instance: shop/a', 'Baton-Plan: deploy', 'Baton-Event: plan-started', 'Baton-Result: IN_PROGRESS',
  `Baton-Source-Commit: ${source}`, 'Baton-Run: r-a', 'Baton-Status-File: status/shop/a.yaml', '',
].join('\n');

const several = (source: string): string => [
  'status: 3 transitions of 2 instances', '',
  'Baton-Transition: shop/b: deploy started',
  'Baton-Instance: shop/b', 'Baton-Plan: deploy', 'Baton-Event: plan-started', 'Baton-Result: IN_PROGRESS',
  `Baton-Source-Commit: ${source}`, 'Baton-Run: r-b', 'Baton-Status-File: status/shop/b.yaml',
  'Baton-Transition: shop/a: deploy phase main complete',
  'Baton-Instance: shop/a', 'Baton-Plan: deploy', 'Baton-Event: phase-complete', 'Baton-Result: IN_PROGRESS',
  `Baton-Source-Commit: ${source}`, 'Baton-Run: r-a', 'Baton-Status-File: status/shop/a.yaml',
  'Baton-Transition: shop/a: deploy COMPLETE in 3s',
  'Baton-Instance: shop/a', 'Baton-Plan: deploy', 'Baton-Event: plan-complete', 'Baton-Result: COMPLETE',
  `Baton-Source-Commit: ${source}`, 'Baton-Run: r-a', 'Baton-Status-File: status/shop/a.yaml', '',
].join('\n');

describe('status commit messages: one transition, or several in trailer blocks', () => {
  it('GIVEN a commit of one transition (the format of every earlier agent) THEN it is one transition, its subject the summary', () => {
    const [t, ...rest] = transitionsOfMessage(one('abc'));
    expect(rest).toEqual([]);
    expect(t?.summary).toBe('shop/a: deploy started');
    expect(t?.trailers.get('Baton-Event')).toEqual(['plan-started']);
  });

  it('GIVEN a commit of several transitions THEN one transition per Baton-Transition block, in order, each with its own trailers', () => {
    const list = transitionsOfMessage(several('abc'));
    expect(list.map((t) => [t.summary, t.trailers.get('Baton-Instance'), t.trailers.get('Baton-Event')])).toEqual([
      ['shop/b: deploy started', ['shop/b'], ['plan-started']],
      ['shop/a: deploy phase main complete', ['shop/a'], ['phase-complete']],
      ['shop/a: deploy COMPLETE in 3s', ['shop/a'], ['plan-complete']],
    ]);
  });

  it('GIVEN entries THEN formatStatusMessage writes one transition as before and several as documented, and reads back the same', () => {
    const entry = (name: string, event: string) => ({ summary: `shop/${name}: ${event}`, trailers: [['Baton-Instance', `shop/${name}`], ['Baton-Event', event]] as const });
    expect(formatStatusMessage([entry('a', 'plan-started')])).toBe('shop/a: plan-started\n\nBaton-Instance: shop/a\nBaton-Event: plan-started\n');
    const message = formatStatusMessage([entry('a', 'plan-started'), entry('b', 'plan-started'), entry('a', 'plan-complete')]);
    expect(message.split('\n')[0]).toBe('status: 3 transitions of 2 instances');
    expect(transitionsOfMessage(message).map((t) => `${t.summary} | ${t.trailers.get('Baton-Event')?.join()}`)).toEqual([
      'shop/a: plan-started | plan-started', 'shop/b: plan-started | plan-started', 'shop/a: plan-complete | plan-complete',
    ]);
  });
});

describe('reading a branch with both forms', () => {
  let sandbox: GitSandbox;
  let origin: string;
  let mirror: GitMirror;

  beforeAll(async () => {
    sandbox = gitSandbox();
    origin = join(sandbox.dir, 'origin.git');
    const work = join(sandbox.dir, 'work');
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: work, env: sandbox.env, encoding: 'utf8' }).trim();
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin], { env: sandbox.env });
    execFileSync('git', ['init', '--quiet', '--initial-branch=main', work], { env: sandbox.env });
    execFileSync('mkdir', ['-p', join(work, 'status/shop'), join(work, 'instances/shop')]);
    execFileSync('sh', ['-c', 'echo "framework: x" > instances/shop/a.yaml && echo "framework: x" > instances/shop/b.yaml'], { cwd: work });
    git('add', '.');
    git('commit', '--quiet', '-m', 'add shop/a and shop/b');
    const source = git('rev-parse', 'HEAD');
    execFileSync('sh', ['-c', 'echo "state: IN_PROGRESS" > status/shop/a.yaml'], { cwd: work });
    git('add', '.');
    git('commit', '--quiet', '-m', one(source));
    execFileSync('sh', ['-c', 'echo "state: COMPLETE" > status/shop/a.yaml && echo "state: IN_PROGRESS" > status/shop/b.yaml'], { cwd: work });
    git('add', '.');
    git('commit', '--quiet', '-m', several(source));
    git('push', '--quiet', origin, 'main');
    mirror = new GitMirror({ dir: join(sandbox.dir, 'mirror'), remote: { url: origin, auth: { kind: 'none' } }, env: sandbox.env });
    await mirror.init();
    await mirror.fetch('main');
  });
  afterAll(() => sandbox.cleanup());

  it('GIVEN a commit of several transitions after one of one WHEN baton history reads them THEN each transition once, newest first, filtered by instance', async () => {
    const ref = 'refs/remotes/origin/main';
    // Readers before 2026-11-24 made one entry per commit: the batch's first block under its subject.
    expect((await readHistory(mirror, { ref })).map((e) => `${e.instance} ${e.event} | ${e.summary}`)).toEqual([
      'shop/a plan-complete | shop/a: deploy COMPLETE in 3s',
      'shop/a phase-complete | shop/a: deploy phase main complete',
      'shop/b plan-started | shop/b: deploy started',
      'shop/a plan-started | shop/a: deploy started',
    ]);
    expect((await readHistory(mirror, { ref, instance: 'shop/a' })).map((e) => e.event)).toEqual(['plan-complete', 'phase-complete', 'plan-started']);
    expect((await readHistory(mirror, { ref, instance: 'b' })).map((e) => e.event)).toEqual(['plan-started']);
    expect((await readHistory(mirror, { ref, limit: 1 })).map((e) => e.event)).toEqual(['plan-complete']);
  });

  it('GIVEN the same branch WHEN the audit record is checked THEN every run is whole: started once, its phase and end once each', () => {
    const check = checkHistory(sandbox.env, origin);
    expect(check.defects).toEqual([]);
    expect(check.runs.get('r-a')?.map((c) => c.event)).toEqual(['plan-started', 'phase-complete', 'plan-complete']);
    expect(check.runs.get('r-a')?.[1]?.phase).toBe('main');
    expect(check.runs.get('r-b')?.map((c) => c.event)).toEqual(['plan-started']);
  });
});
