/**
 * The agent's own bare clone of the repository, and the only place that runs the git binary
 * (through simple-git): init, fetch, push, log. Objects are read from and written into the same bare
 * directory with isomorphic-git (see tree.ts, write.ts); nothing ever checks out a working tree.
 * Every operation on one mirror runs one at a time (a promise queue), as git's own locks expect.
 *
 * simple-git waits an extra 50 ms after any git process that wrote nothing to stdout or stderr (its
 * completion plugin guards against late output). So transport commands run with `--verbose` (a few
 * lines on stderr) rather than `--quiet`, and local ref reads and writes run in-process through
 * isomorphic-git: an idle poll then costs one `git fetch`, not a fetch plus 50 ms.
 */
import * as fs from 'node:fs';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import isogit from 'isomorphic-git';
import { simpleGit, GitError, type SimpleGit } from 'simple-git';
import { GIT_ENV_ALLOWED, authEnv, normaliseRemote, redactUrl, type RemoteSpec } from './remote.js';
import { GitObjectError, GitPushRejectedError, GitTransportError } from './errors.js';
import { explainGitFailure } from './explain.js';
import { MirrorUsers } from './mirror-users.js';
import { objectFs, type ObjectFs } from './object-fs.js';
import { runGit } from './spawn.js';

export interface MirrorOptions {
  /** Directory of the bare clone; kept across restarts so unpushed status commits survive. */
  dir: string;
  remote: RemoteSpec;
  /** Base environment for git (default process.env); tests pass a sandbox. */
  env?: NodeJS.ProcessEnv;
  /** Kill a git process silent for this long (default 120 s). */
  timeoutMs?: number;
  cwd?: string;
}

/** Git's words for a lock file in the way (a process died holding it, or another one holds it now). */
const LOCKED = /\.lock'?: File exists|cannot lock ref|Unable to create '[^']*\.lock'/i;

/**
 * Pack settings for pushes of status commits (StatusWriter's `pushConfig`): no delta search and the
 * fastest zlib level. Building the pack was most of a push's CPU (git trace2: write-pack-file 92 of
 * 129 s of pack-objects in a 4-member run), paid again for every push that then lost the race for the
 * ref. Safe: the settings change only how objects are encoded in transit, never what they are; the
 * remote stores them as sent (a little larger, undeltified) until its next gc or repack, which
 * searches deltas for objects that have none.
 */
export const PUSH_PACK_CONFIG: readonly string[] = ['pack.window=0', 'pack.compression=1'];

/** Remote-tracking ref that holds the fetched tip of `branch`. */
export const trackingRef = (branch: string): string => `refs/remotes/origin/${branch}`;

const PASSED_ENV = new Set<string>([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TMPDIR', 'TZ', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'SSH_AUTH_SOCK',
  'GIT_SSL_CAINFO', 'GIT_CONFIG_NOSYSTEM',
]);

export class GitMirror {
  readonly dir: string;
  readonly url: string;
  private readonly git: SimpleGit;
  /**
   * Where refs live, for in-process reads and writes: the bare clone itself, or the `.git` directory
   * of a local checkout read in place. A `.git` file (linked worktree) leaves it to the git binary.
   */
  private readonly gitdir: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** The processes using this clone, for telling stale lock files (see mirror-users.ts). */
  private readonly users: MirrorUsers | undefined;
  private readonly timeoutMs: number;
  /** isomorphic-git's file system for in-process ref reads (see object-fs.ts). */
  private readonly refFs: ObjectFs | undefined;
  /** The environment every git process of this mirror gets (the same simple-git is given). */
  private readonly env: Record<string, string>;

  constructor(options: MirrorOptions) {
    this.dir = options.dir;
    this.url = normaliseRemote(options.remote.url, options.cwd ?? process.cwd());
    if (!existsSync(this.dir)) mkdirSync(this.dir, { recursive: true });
    const dotGit = join(this.dir, '.git');
    this.gitdir = !existsSync(dotGit) ? this.dir : statSync(dotGit).isDirectory() ? dotGit : undefined;
    this.refFs = this.gitdir === undefined ? undefined : objectFs(this.gitdir);
    // Only Baton's own bare clones: a user's checkout read in place is theirs to look after.
    this.users = this.gitdir === this.dir ? new MirrorUsers(this.dir) : undefined;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    const base = options.env ?? process.env;
    const env: Record<string, string> = { GIT_TERMINAL_PROMPT: '0' };
    // Only plain process settings and the GIT_* keys Baton owns: simple-git rejects EDITOR, PAGER...
    for (const [k, v] of Object.entries(base)) if (v !== undefined && PASSED_ENV.has(k)) env[k] = v;
    Object.assign(env, authEnv(options.remote.auth));
    this.env = env;
    this.git = simpleGit({
      baseDir: this.dir,
      timeout: { block: this.timeoutMs },
      config: [],
      // Treat the process as done when its streams close; the default also waits 50 ms after exit.
      completion: { onClose: true, onExit: false },
      allowEnvironment: [...GIT_ENV_ALLOWED],
      // simple-git guards these variables because a caller could pass attacker-chosen values. Here
      // Baton composes them itself from the operator's settings (never from repository content):
      // GIT_CONFIG_* carries only `http.extraHeader` (keeping the token out of argv / `ps`), and
      // GIT_SSH_COMMAND only `ssh -i KEY`. Each flag is enabled only for the auth kind that needs it.
      unsafe: {
        allowUnsafeConfigEnvCount: options.remote.auth.kind === 'token',
        allowUnsafeSshCommand: options.remote.auth.kind === 'ssh',
      },
    }).env(env);
  }

  /** Serialises `fn` behind every earlier operation on this mirror. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Creates the bare repository when missing. Idempotent. */
  init(): Promise<void> {
    return this.exclusive(async () => {
      if (existsSync(`${this.dir}/HEAD`)) {
        this.users?.register();
        this.users?.clearStaleLocks(this.timeoutMs);
        return;
      }
      await this.raw('init', ['init', '--bare', '--quiet', '.']);
      // isomorphic-git writes loose objects; git's auto-gc would repack under a concurrent reader.
      await this.raw('config', ['config', 'gc.auto', '0']);
      this.users?.register();
    });
  }

  /**
   * Fetches `branch` into its tracking ref and returns the tip, or `undefined` when the remote has no
   * such branch (a status branch before its first push).
   */
  fetch(branch: string): Promise<string | undefined> {
    return this.exclusive(async () => {
      try {
        // Spawned directly, not through simple-git: the idle poll is this fetch (see spawn.ts).
        await this.withStaleLocksCleared(() => this.direct('fetch', ['fetch', '--verbose', '--no-tags', '--no-write-fetch-head', this.url, `+refs/heads/${branch}:${trackingRef(branch)}`]));
      } catch (err) {
        if (err instanceof GitTransportError && /couldn't find remote ref/i.test(gitStderr(err))) return undefined;
        throw err;
      }
      // Read the ref in-process: a second git process would double the cost of an idle poll.
      return this.revParse(trackingRef(branch));
    });
  }

  /**
   * Pushes `sha` to `branch` without force; a moved remote branch throws GitPushRejectedError.
   * `config`: `key=value` settings for this push only (`git -c`), e.g. PUSH_PACK_CONFIG.
   */
  push(sha: string, branch: string, config: readonly string[] = []): Promise<void> {
    return this.exclusive(async () => {
      try {
        await this.raw('push', [...config.flatMap((c) => ['-c', c]), 'push', '--verbose', this.url, `${sha}:refs/heads/${branch}`]);
      } catch (err) {
        const text = err instanceof GitTransportError ? gitStderr(err) : err instanceof Error ? err.message : String(err);
        if (/\[rejected\]|non-fast-forward|fetch first|\[remote rejected\].*(stale|cannot lock)|failed to update ref/i.test(text)) {
          throw new GitPushRejectedError(branch, firstLine(text));
        }
        throw err;
      }
      await this.writeRef(trackingRef(branch), sha);
    });
  }

  /**
   * Resolves a ref to a commit id, `undefined` when it does not exist. Full ref names (`refs/...`,
   * `HEAD`) are read in-process; anything else (`main~2`, a short id) goes to `git rev-parse`.
   */
  async revParse(ref: string): Promise<string | undefined> {
    // (Tags may name annotated tag objects, which git peels to their commit.)
    if (this.gitdir !== undefined && (ref === 'HEAD' || (ref.startsWith('refs/') && !ref.startsWith('refs/tags/')))) {
      // A loose ref holding an object id (what a fetch or writeRef leaves) is that id: one file read. A
      // loose ref wins over packed-refs, as in git. (isomorphic-git's resolveRef cost ~0.6 ms of a ~12 ms
      // idle poll at 10,000 instances; issue #20.) Anything else (symbolic, packed, absent) goes on below.
      const loose = ref === 'HEAD' || !isValidRef(ref) ? undefined : await readLooseId(join(this.gitdir, ref));
      if (loose !== undefined) return loose;
      try {
        return await isogit.resolveRef({ fs: this.refFs ?? fs, gitdir: this.gitdir, ref });
      } catch (err) {
        if (err instanceof isogit.Errors.NotFoundError) return undefined;
        // Anything unusual (a symbolic ref loop, a broken file): let git decide.
      }
    }
    try {
      const out = await this.git.raw(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
      return out.trim() || undefined;
    } catch {
      return undefined;
    }
  }

  /** Points a local ref at `sha` (or deletes it when `sha` is undefined). */
  setRef(ref: string, sha: string | undefined): Promise<void> {
    return this.exclusive(() => this.writeRef(ref, sha));
  }

  private async writeRef(ref: string, sha: string | undefined): Promise<void> {
    if (this.gitdir === undefined) {
      await this.git.raw(sha === undefined ? ['update-ref', '-d', ref] : ['update-ref', ref, sha]);
    } else if (sha === undefined) {
      await isogit.deleteRef({ fs: this.refFs ?? fs, gitdir: this.gitdir, ref });
    } else {
      await writeLooseRef(this.gitdir, ref, sha);
    }
  }

  /**
   * Runs a git command; when it fails on a lock file left by a process that died mid-operation (one
   * that crashed while this agent runs, e.g. a CLI command on the same clone), clears the stale locks
   * (see mirror-users.ts) and runs it once more.
   */
  private async withStaleLocksCleared<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (!(err instanceof GitTransportError) || !LOCKED.test(gitStderr(err)) || (this.users?.clearStaleLocks(this.timeoutMs) ?? 0) === 0) throw err;
      return op();
    }
  }

  /** True when `ancestor` is reachable from `descendant`. */
  isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return this.exclusive(async () => {
      try {
        await this.git.raw(['merge-base', '--is-ancestor', ancestor, descendant]);
        return true;
      } catch {
        return false;
      }
    });
  }

  /** Runs a read-only git command (log, rev-list) in the mirror; arguments are fixed arrays. */
  read(args: string[]): Promise<string> {
    return this.exclusive(() => this.raw(args[0] ?? 'git', args));
  }

  /** raw(), through runGit rather than simple-git (a cheaper process start); the same errors. */
  private async direct(operation: string, args: string[]): Promise<string> {
    try {
      return await runGit(args, { cwd: this.dir, env: this.env, silenceMs: this.timeoutMs });
    } catch (err) {
      throw this.transportError(operation, err);
    }
  }

  private transportError(operation: string, err: unknown): GitTransportError {
    const message = err instanceof GitError || err instanceof Error ? err.message : String(err);
    return new GitTransportError(operation, redactUrl(explainGitFailure(this.url, message)), { url: redactUrl(this.url), stderr: redactUrl(message.slice(0, 4000)) }, err);
  }

  private async raw(operation: string, args: string[]): Promise<string> {
    try {
      return await this.git.raw(args);
    } catch (err) {
      throw this.transportError(operation, err);
    }
  }
}

/**
 * A full ref name git itself would accept (the rules of `git check-ref-format` that matter here), so
 * the path built from it stays inside the gitdir and never collides with a lock file.
 */
function isValidRef(ref: string): boolean {
  const parts = ref.split('/');
  if (parts[0] !== 'refs' || parts.length < 2) return false;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what git refuses
  const forbidden = /[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{/;
  return parts.every((p) => p !== '' && !p.startsWith('.') && !p.endsWith('.') && !p.endsWith('.lock') && !forbidden.test(p));
}

/** A full SHA-1 or SHA-256 object id, as a loose ref holds. */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * Points a loose ref at `sha` the way git does: write `<ref>.lock`, flush it to disk, rename it over
 * the ref. A crash or a full disk then leaves the old ref (and perhaps a stale lock), never an empty
 * ref file, which would make every later fetch fail. (isomorphic-git truncates the ref in place.)
 */
async function writeLooseRef(gitdir: string, ref: string, sha: string): Promise<void> {
  if (!isValidRef(ref)) throw new GitObjectError(`not a valid ref name: ${ref}`, { ref });
  if (!OBJECT_ID.test(sha)) throw new GitObjectError(`not an object id: ${sha}`, { ref, sha });
  const path = join(gitdir, ref);
  const lock = `${path}.lock`;
  await fs.promises.mkdir(dirname(path), { recursive: true });
  try {
    // 'w' rather than 'wx': a lock left by a crash of this process would otherwise block the ref
    // forever, and every write to this mirror already runs one at a time (see exclusive()).
    const handle = await fs.promises.open(lock, 'w');
    try {
      await handle.writeFile(`${sha}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(lock, path);
  } catch (err) {
    await fs.promises.rm(lock, { force: true });
    throw err;
  }
}

/** The object id a loose ref file holds, or undefined (no such file, a symbolic ref, anything unusual). */
async function readLooseId(path: string): Promise<string | undefined> {
  try {
    // Synchronous: a 41-byte file is read in microseconds; the promise API's open/read/close cost more.
    const text = fs.readFileSync(path, 'utf8').trim();
    return OBJECT_ID.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

/** What git printed (redacted), kept beside the one-sentence message for rules that match on it. */
function gitStderr(err: GitTransportError): string {
  return typeof err.context.stderr === 'string' ? err.context.stderr : err.message;
}

