/**
 * The file system isomorphic-git reads a bare clone through. isomorphic-git asks `stat(gitdir)` before
 * every single call (is `.git` a directory or a worktree's pointer file?): with thousands of objects
 * read per pass that was the largest single cost of reading objects (~10% of an agent's CPU in a
 * 1,000-instance shard run). A bare clone's directory stays a directory, so its stat is asked once
 * per store; every other call goes to node:fs unchanged (looked up at call time).
 */
import * as fs from 'node:fs';

type Stat = Awaited<ReturnType<typeof fs.promises.stat>>;

/** What isomorphic-git's `fs` option accepts (a promise file system, `promises` enumerable). */
export interface ObjectFs {
  promises: Pick<typeof fs.promises, 'readFile' | 'writeFile' | 'unlink' | 'readdir' | 'mkdir' | 'rmdir' | 'stat' | 'lstat' | 'readlink' | 'symlink' | 'chmod'>;
}

export function objectFs(gitdir: string): ObjectFs {
  let known: Stat | undefined;
  const stat = (async (path: fs.PathLike, options?: fs.StatOptions) => {
    if (path === gitdir && known !== undefined) return known;
    const s = await fs.promises.stat(path, options);
    // Only a directory is remembered: a missing gitdir (not yet created) is asked again.
    if (path === gitdir && s.isDirectory()) known = s;
    return s;
  }) as typeof fs.promises.stat;
  const p = fs.promises;
  return {
    promises: {
      readFile: ((...a: Parameters<typeof p.readFile>) => p.readFile(...a)) as typeof p.readFile,
      writeFile: (...a) => p.writeFile(...a),
      unlink: (...a) => p.unlink(...a),
      readdir: ((...a: Parameters<typeof p.readdir>) => p.readdir(...a)) as typeof p.readdir,
      mkdir: ((...a: Parameters<typeof p.mkdir>) => p.mkdir(...a)) as typeof p.mkdir,
      rmdir: (...a) => p.rmdir(...a),
      stat,
      lstat: ((...a: Parameters<typeof p.lstat>) => p.lstat(...a)) as typeof p.lstat,
      readlink: ((...a: Parameters<typeof p.readlink>) => p.readlink(...a)) as typeof p.readlink,
      symlink: (...a) => p.symlink(...a),
      chmod: (...a) => p.chmod(...a),
    },
  };
}
