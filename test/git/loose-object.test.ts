import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { afterEach, describe, expect, it } from 'vitest';
import { commitBody, treeBody, writeLooseObject, type TreeEntryInput } from '../../src/git/loose-object.js';

const dirs: string[] = [];
function bareRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-loose-'));
  dirs.push(dir);
  execFileSync('git', ['init', '--bare', '--quiet', dir]);
  return dir;
}
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

describe('loose objects written without isomorphic-git', () => {
  it('have the oids isomorphic-git gives them and pass git fsck', async () => {
    const gitdir = bareRepo();
    const other = bareRepo();
    const text = new TextEncoder().encode('plan: deploy\nstatus: COMPLETE — ünïcode\n');
    const blob = writeLooseObject(gitdir, 'blob', text);
    expect(blob).toBe(await git.writeBlob({ fs, gitdir: other, blob: text }));
    expect(writeLooseObject(gitdir, 'blob', new Uint8Array())).toBe(await git.writeBlob({ fs, gitdir: other, blob: new Uint8Array() }));
    // Names whose order differs between plain comparison and git's (a tree sorts as `name/`), non-ASCII names.
    const sub = writeLooseObject(gitdir, 'tree', treeBody([{ mode: '100644', path: 'x.yaml', oid: blob, type: 'blob' }]));
    const entries: TreeEntryInput[] = [
      { mode: '100644', path: 'a.b', oid: blob, type: 'blob' },
      { mode: '040000', path: 'a', oid: sub, type: 'tree' },
      { mode: '100644', path: 'a-c', oid: blob, type: 'blob' },
      { mode: '100755', path: 'run.sh', oid: blob, type: 'blob' },
      { mode: '120000', path: 'link', oid: blob, type: 'blob' },
      { mode: '100644', path: 'é.yaml', oid: blob, type: 'blob' },
      { mode: '040000', path: 'Z', oid: sub, type: 'tree' },
    ];
    await git.writeBlob({ fs, gitdir: other, blob: text });
    await git.writeTree({ fs, gitdir: other, tree: [{ mode: '100644', path: 'x.yaml', oid: blob, type: 'blob' }] });
    const tree = writeLooseObject(gitdir, 'tree', treeBody(entries));
    expect(tree).toBe(await git.writeTree({ fs, gitdir: other, tree: entries }));
    const who = { name: 'Baton Agent', email: 'agent@example.com', timestamp: 1795490964, timezoneOffset: 0 };
    const message = 'status: deploy COMPLETE\n\nBaton-Instance: prod/redis\nBaton-Event: plan-complete\n';
    const root = writeLooseObject(gitdir, 'commit', commitBody({ tree, parents: [], author: who, committer: who, message }));
    expect(root).toBe(await git.writeCommit({ fs, gitdir: other, commit: { tree, parent: [], author: who, committer: who, message } }));
    const child = writeLooseObject(gitdir, 'commit', commitBody({ tree: sub, parents: [root], author: who, committer: who, message: 'one line\n' }));
    expect(child).toBe(await git.writeCommit({ fs, gitdir: other, commit: { tree: sub, parent: [root], author: who, committer: who, message: 'one line\n' } }));
    execFileSync('git', ['--git-dir', gitdir, 'update-ref', 'refs/heads/main', child]);
    // fsck reads every object back (hash, zlib stream, tree order and modes, commit headers).
    execFileSync('git', ['--git-dir', gitdir, 'fsck', '--strict', '--no-dangling'], { stdio: 'pipe' });
    expect(execFileSync('git', ['--git-dir', gitdir, 'cat-file', '-p', `${child}:x.yaml`], { encoding: 'utf8' })).toBe(new TextDecoder().decode(text));
  });

  it('leaves an object already there as it is, and no temporary files behind', () => {
    const gitdir = bareRepo();
    const body = new TextEncoder().encode('same');
    const oid = writeLooseObject(gitdir, 'blob', body);
    const file = join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
    const before = statSync(file).mtimeMs;
    expect(writeLooseObject(gitdir, 'blob', body)).toBe(oid);
    expect(statSync(file).mtimeMs).toBe(before);
    expect(fs.readdirSync(join(gitdir, 'objects', oid.slice(0, 2)))).toEqual([oid.slice(2)]);
  });
});
