/**
 * isomorphic-git stats the gitdir before every call; the object store asks it once (object-fs.ts):
 * a pass reading thousands of objects spent ~10% of an agent's CPU on those stats.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ObjectStore } from '../../src/git/tree.js';
import { writeCommit, writeTreeWith } from '../../src/git/write.js';

describe('the object store file system', () => {
  afterEach(() => { vi.restoreAllMocks(); });

  it('GIVEN a repository of many files WHEN every file is read and a commit written THEN the gitdir is stat-ed at most once, and the objects read and written are right', async () => {
    const work = fs.mkdtempSync(join(tmpdir(), 'baton-object-fs-'));
    try {
      const git = (...args: string[]): string => execFileSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
      git('init', '--quiet');
      for (let i = 0; i < 40; i++) fs.writeFileSync(join(work, `f-${i}.txt`), `file ${i}\n`);
      git('add', '--all');
      git('commit', '--quiet', '-m', 'files');
      const head = git('rev-parse', 'HEAD');
      const gitdir = join(work, '.git');
      const stat = vi.spyOn(fs.promises, 'stat');
      const store = new ObjectStore(gitdir);
      const tree = await store.at(head);
      for (let i = 0; i < 40; i++) expect(new TextDecoder().decode(await tree.read(`f-${i}.txt`))).toBe(`file ${i}\n`);
      const root = await writeTreeWith(store, tree.rootTree, new Map([['new.txt', new TextEncoder().encode('new\n')]]));
      const commit = await writeCommit(store, { tree: root, parents: [head], message: 'new\n', author: { name: 't', email: 't@example.com' } });
      const gitdirStats = stat.mock.calls.filter(([path]) => path === gitdir).length;
      expect(gitdirStats).toBeLessThanOrEqual(1);
      expect(git('show', `${commit}:new.txt`)).toBe('new');
      expect(git('show', `${commit}:f-7.txt`)).toBe('file 7');
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
