/**
 * The one way a request reaches Git: a commit that appends one request to
 * `requests/<namespace>/<instance>.yaml` (`baton plan trigger|pause|resume|...`, and pod actions).
 * In a local working clone the commit is made there (only that path, the rest of the work tree is left
 * alone) and the user pushes it; for a URL or a bare repository it is committed without a working tree
 * and pushed, rebuilt on the new tip if someone pushed meanwhile (the request is appended again to the
 * file as it is there, so no one's request is lost).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GitPushRejectedError } from '../git/errors.js';
import { formatMessage } from '../git/trailers.js';
import type { CommitTree } from '../git/tree.js';
import { writeCommit, writeTreeWith, type Identity } from '../git/write.js';
import { BatonError } from '../errors.js';
import { openRepository, type RepoLocation } from './repo-access.js';
import { appendRequest, requestPath, type OperatorRequest } from './request-file.js';
import type { InstanceKey } from './status-file.js';
import { TRAILER } from './trailers.js';

/** What to ask: everything of a request but its id and stamps, which the commit adds. */
export type RequestInput = Omit<OperatorRequest, 'id' | 'requestedAt' | 'requestedBy'>;

export interface CommitRequestInput {
  instance: InstanceKey;
  request: RequestInput;
  /** Who asks (commit author, and `requestedBy`); default from git config in a working clone. */
  author?: Identity;
  now?: Date;
  /**
   * Checks the request against the repository at the commit it is added to (unknown plan, phase, step
   * or pod): throw a BatonError to refuse it; nothing is committed.
   */
  check?: (tree: CommitTree, request: OperatorRequest) => Promise<void>;
}

export interface CommitRequestResult {
  id: string;
  commit: string;
  file: string;
  pushed: boolean;
  request: OperatorRequest;
}

export function newRequestId(now: Date): string {
  return `r-${now.toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`;
}

/** `shop/zk: pause deploy requested`, with the request's trailers (docs/operations.md). */
export function requestMessage(instance: InstanceKey, r: OperatorRequest): string {
  const who = `${instance.namespace}/${instance.name}`;
  const what = [r.action === 'trigger' ? undefined : r.action, r.plan, r.phase ? `phase ${r.phase}` : undefined, r.step ? `step ${r.step}` : undefined, r.pod ? `pod ${r.pod}` : undefined].filter(Boolean).join(' ');
  const body = [Object.keys(r.args).length > 0 ? `Arguments: ${Object.keys(r.args).sort().join(', ')}` : undefined, r.reason ? `Reason: ${r.reason}` : undefined].filter(Boolean).join('\n');
  const trailers: [string, string][] = [[TRAILER.instance, who], ...(r.plan ? [[TRAILER.plan, r.plan] as [string, string]] : []), [TRAILER.event, 'requested'], [TRAILER.request, r.id], [TRAILER.action, r.action]];
  if (r.requestedBy) trailers.push([TRAILER.requestedBy, r.requestedBy]);
  return formatMessage(`${who}: ${what} requested`, body || undefined, trailers);
}

export async function commitRequest(location: RepoLocation, input: CommitRequestInput): Promise<CommitRequestResult> {
  const now = input.now ?? new Date();
  const file = requestPath(input.instance);
  const who = `${input.instance.namespace}/${input.instance.name}`;
  const repo = await openRepository(location);
  if (repo.commit === undefined) throw new BatonError('BRANCH_MISSING', `branch ${location.branch} does not exist in ${location.repo}`, { branch: location.branch });
  const worktree = repo.worktree;
  const configured = worktree !== undefined ? await gitIdentity(repo.mirror) : undefined;
  const author = input.author ?? configured;
  const request: OperatorRequest = {
    ...input.request, id: newRequestId(now), requestedAt: now.toISOString(),
    ...(author ? { requestedBy: `${author.name} <${author.email}>` } : {}),
  };
  const message = requestMessage(input.instance, request);
  const checked = async (commit: string): Promise<CommitTree> => {
    const tree = await repo.store.at(commit);
    if ((await tree.id(`instances/${who}.yaml`)) === undefined && (await tree.id(`instances/${who}.yml`)) === undefined) {
      throw new BatonError('INSTANCE_UNKNOWN', `instances/${who}.yaml does not exist on ${location.branch}: name the instance as <namespace>/<name>`, { instance: who });
    }
    await input.check?.(tree, request);
    return tree;
  };
  if (worktree !== undefined) {
    // A working clone: commit only the request file, with the user's own git identity.
    await checked(repo.commit);
    const path = join(worktree, file);
    const content = appendRequest(existsSync(path) ? readFileSync(path, 'utf8') : undefined, file, request);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    await repo.mirror.read(['add', '--', file]);
    await repo.mirror.read(['commit', '--quiet', '-m', message, '--', file]);
    return { id: request.id, commit: (await repo.mirror.revParse('HEAD')) ?? '', file, pushed: false, request };
  }
  const identity = author ?? { name: 'baton', email: 'baton@localhost' };
  let parent = repo.commit;
  for (let attempt = 1; ; attempt++) {
    const tree = await checked(parent);
    const content = appendRequest(await tree.readText(file), file, request);
    const base = await repo.store.treeOfCommit(parent);
    const newTree = await writeTreeWith(repo.store, base, new Map([[file, new TextEncoder().encode(content)]]));
    const commit = await writeCommit(repo.store, { tree: newTree, parents: [parent], message, author: identity });
    try {
      await repo.mirror.push(commit, location.branch);
      return { id: request.id, commit, file, pushed: true, request };
    } catch (err) {
      if (!(err instanceof GitPushRejectedError) || attempt >= 5) throw err;
      parent = (await repo.mirror.fetch(location.branch)) ?? parent;
    }
  }
}

async function gitIdentity(mirror: { read(args: string[]): Promise<string> }): Promise<Identity | undefined> {
  try {
    const name = (await mirror.read(['config', 'user.name'])).trim();
    const email = (await mirror.read(['config', 'user.email'])).trim();
    return name && email ? { name, email } : undefined;
  } catch {
    return undefined;
  }
}
