/**
 * The user's commit behind a branch tip. With status written to the watched branch, the tip is often
 * one of the agent's own status commits; what a run applies is the desired state of the newest commit
 * that is not one (status commits change only `status/`, so that commit has the same desired state).
 * `Baton-Source-Commit` and a run's `sourceCommit` name it, never a status commit.
 */
import git from 'isomorphic-git';
import { parseTrailers, trailer } from '../git/trailers.js';
import type { ObjectStore } from '../git/tree.js';
import { STATUS_FILE_TRAILER } from './status-writer.js';

/** Enough for any burst of status commits; a longer chain (never written by an agent) names the tip. */
const MAX_WALK = 100_000;

export class SourceCommits {
  /** Commit -> the user's commit behind it; a walk stops at the first commit it already knows. */
  private readonly known = new Map<string, string>();

  constructor(private readonly store: ObjectStore) {}

  /** The newest commit reachable from `tip` through first parents that is not a status commit. */
  async userCommitOf(tip: string): Promise<string> {
    const walked: string[] = [];
    let at: string | undefined = tip;
    let found: string | undefined;
    while (at !== undefined && walked.length < MAX_WALK) {
      const cached = this.known.get(at);
      if (cached !== undefined) { found = cached; break; }
      const { commit } = await git.readCommit({ fs: this.store.fs, gitdir: this.store.gitdir, oid: at, cache: this.store.cache });
      walked.push(at);
      if (trailer(parseTrailers(commit.message), STATUS_FILE_TRAILER) === undefined) { found = at; break; }
      at = commit.parent[0];
    }
    // A history of status commits only (never written by an agent): name the tip itself.
    const user = found ?? tip;
    if (this.known.size > 10_000) this.known.clear();
    for (const sha of walked) this.known.set(sha, user);
    return user;
  }
}
