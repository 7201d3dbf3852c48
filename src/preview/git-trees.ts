/**
 * Reads the two sides of a change from a Git repository (a plain checkout or the agent's bare clone)
 * at exact commits, never from the working tree: a preview must show what the refs hold.
 */
import { simpleGit } from 'simple-git';
import { BatonError } from '../errors.js';
import { ObjectStore } from '../git/tree.js';
import type { FileTree } from '../render/index.js';

export class PreviewRefError extends BatonError {}

export interface ResolvedTrees {
  base: FileTree;
  head: FileTree;
  baseCommit: string;
  headCommit: string;
}

export async function treesAt(repoDir: string, baseRef: string, headRef: string): Promise<ResolvedTrees> {
  const git = simpleGit({ baseDir: repoDir, timeout: { block: 30_000 } });
  let gitdir: string;
  try {
    gitdir = (await git.revparse(['--absolute-git-dir'])).trim();
  } catch {
    throw new PreviewRefError('PREVIEW_NOT_A_REPOSITORY', `${repoDir} is not a Git repository`, { repo: repoDir });
  }
  const resolve = async (ref: string, flag: string): Promise<string> => {
    // A ref that starts with "-" would be read by git as an option.
    if (ref === '' || ref.startsWith('-')) throw new PreviewRefError('PREVIEW_BAD_REF', `${flag} ${JSON.stringify(ref)} is not a valid Git ref`, { ref });
    try {
      return (await git.revparse(['--verify', '--end-of-options', `${ref}^{commit}`])).trim();
    } catch {
      throw new PreviewRefError('PREVIEW_UNKNOWN_REF', `${flag} ${ref}: no such commit in ${repoDir}`, { ref, repo: repoDir });
    }
  };
  const [baseCommit, headCommit] = [await resolve(baseRef, '--base'), await resolve(headRef, '--head')];
  const store = new ObjectStore(gitdir);
  return { base: await store.at(baseCommit), head: await store.at(headCommit), baseCommit, headCommit };
}
