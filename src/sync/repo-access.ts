/**
 * Opening a repository for reading (history, status) or for a one-off commit (plan trigger): a local
 * working clone or bare repository is read in place; a URL is fetched into a cached bare clone.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GitMirror, trackingRef } from '../git/mirror.js';
import { normaliseRemote, type RemoteAuth } from '../git/remote.js';
import { ObjectStore } from '../git/tree.js';
import { BatonError } from '../errors.js';

export interface RepoLocation {
  /** URL or local path. */
  repo: string;
  branch: string;
  auth?: RemoteAuth;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where cached bare clones of remote repositories live (default $BATON_CACHE_DIR or ~/.cache/baton). */
  cacheDir?: string;
}

export interface OpenRepository {
  mirror: GitMirror;
  store: ObjectStore;
  /** The ref that holds the branch tip to read. */
  ref: string;
  /** The tip commit, undefined when the branch does not exist. */
  commit: string | undefined;
  /** True when the repository is a local one read in place (no fetch). */
  local: boolean;
  /** The working tree of a local non-bare clone. */
  worktree?: string;
}

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.BATON_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'baton');
}

/** A stable directory name for a remote: the agent's persistent bare clone lives there. */
export function mirrorDirFor(url: string, root: string): string {
  return join(root, 'repos', createHash('sha256').update(url).digest('hex').slice(0, 16));
}

export async function openRepository(loc: RepoLocation): Promise<OpenRepository> {
  const url = normaliseRemote(loc.repo, loc.cwd ?? process.cwd());
  const env = loc.env ?? process.env;
  const auth = loc.auth ?? { kind: 'none' };
  const localGitDir = existsSync(join(url, '.git')) ? join(url, '.git') : existsSync(join(url, 'HEAD')) && existsSync(join(url, 'objects')) ? url : undefined;
  if (localGitDir !== undefined) {
    const mirror = new GitMirror({ dir: url, remote: { url, auth }, env });
    const ref = `refs/heads/${loc.branch}`;
    return { mirror, store: new ObjectStore(localGitDir), ref, commit: await mirror.revParse(ref), local: true, ...(localGitDir !== url ? { worktree: url } : {}) };
  }
  if (existsSync(url) || url.startsWith('/')) {
    if (!existsSync(url)) throw new BatonError('REPO_NOT_FOUND', `repository ${loc.repo} does not exist`, { repo: loc.repo });
    throw new BatonError('REPO_NOT_GIT', `${loc.repo} is not a Git repository (no .git)`, { repo: loc.repo });
  }
  const mirror = new GitMirror({ dir: mirrorDirFor(url, loc.cacheDir ?? cacheRoot(env)), remote: { url, auth }, env });
  await mirror.init();
  const commit = await mirror.fetch(loc.branch);
  return { mirror, store: new ObjectStore(mirror.dir), ref: trackingRef(loc.branch), commit, local: false };
}

/** Auth from the environment: BATON_GIT_TOKEN (+ BATON_GIT_USERNAME) or BATON_GIT_SSH_KEY (+ BATON_GIT_KNOWN_HOSTS). */
export function authFromEnv(env: NodeJS.ProcessEnv = process.env): RemoteAuth {
  if (env.BATON_GIT_TOKEN) return { kind: 'token', token: env.BATON_GIT_TOKEN, ...(env.BATON_GIT_USERNAME ? { username: env.BATON_GIT_USERNAME } : {}) };
  if (env.BATON_GIT_SSH_KEY) return { kind: 'ssh', keyFile: env.BATON_GIT_SSH_KEY, ...(env.BATON_GIT_KNOWN_HOSTS ? { knownHosts: env.BATON_GIT_KNOWN_HOSTS } : {}) };
  return { kind: 'none' };
}
