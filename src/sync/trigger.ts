/**
 * `baton plan trigger`: a commit that writes `requests/<namespace>/<instance>.yaml` with a new id.
 * In a local working clone the commit is made there (only that path, the rest of the work tree is
 * left alone) and the user pushes it; for a URL or a bare repository it is committed without a
 * working tree and pushed, rebuilt on the new tip if someone pushed meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GitPushRejectedError } from '../git/errors.js';
import { formatMessage } from '../git/trailers.js';
import { writeCommit, writeTreeWith, type Identity } from '../git/write.js';
import { BatonError } from '../errors.js';
import { loadInstance, loadInstanceFramework, type FileTree } from '../render/index.js';
import { checkPlanArgs } from '../render/plan-args.js';
import { openRepository, type RepoLocation } from './repo-access.js';
import { formatRequest, requestPath } from './request-file.js';
import type { InstanceKey } from './status-file.js';
import { TRAILER } from './trailers.js';

export interface TriggerInput {
  instance: InstanceKey;
  plan: string;
  args: Record<string, string>;
  author?: Identity;
  now?: Date;
}

export interface TriggerResult {
  id: string;
  commit: string;
  file: string;
  pushed: boolean;
}

/**
 * The plan and its arguments checked against the instance's framework version at the branch tip, so
 * a misspelt plan or argument is refused now rather than by the agent after the commit is pushed.
 * An instance or framework that does not load is left to the agent (it reports that in status).
 */
async function checkRequest(tree: FileTree, file: string, input: TriggerInput): Promise<void> {
  const inst = await loadInstance(tree, file);
  if (!inst.ok) return;
  const fw = await loadInstanceFramework(tree, inst.value);
  if (!fw.ok) return;
  const plans = Object.keys(fw.value.decl.plans).sort();
  if (!plans.includes(input.plan)) {
    throw new BatonError('PLAN_UNKNOWN', `framework ${fw.value.name} ${fw.value.version} has no plan "${input.plan}" (plans: ${plans.join(', ')})`, { plan: input.plan });
  }
  const checked = checkPlanArgs(fw.value, input.plan, input.args);
  if (!checked.ok) {
    throw new BatonError(checked.problems[0]?.code ?? 'PLAN_ARG_INVALID', checked.problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('; '), { plan: input.plan });
  }
}

export async function triggerPlan(location: RepoLocation, input: TriggerInput): Promise<TriggerResult> {
  const id = `r-${(input.now ?? new Date()).toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`;
  const file = requestPath(input.instance);
  const content = formatRequest({ id, plan: input.plan, args: input.args, requestedAt: (input.now ?? new Date()).toISOString(), ...(input.author ? { requestedBy: `${input.author.name} <${input.author.email}>` } : {}) });
  const who = `${input.instance.namespace}/${input.instance.name}`;
  const message = formatMessage(`${who}: request ${input.plan}`, Object.keys(input.args).length > 0 ? `Arguments: ${Object.keys(input.args).sort().join(', ')}` : undefined, [
    [TRAILER.instance, who], [TRAILER.plan, input.plan], [TRAILER.event, 'requested'], [TRAILER.request, id],
  ]);
  const repo = await openRepository(location);
  if (repo.commit === undefined) throw new BatonError('BRANCH_MISSING', `branch ${location.branch} does not exist in ${location.repo}`, { branch: location.branch });
  const tree = await repo.store.at(repo.commit);
  if ((await tree.id(`instances/${who}.yaml`)) === undefined) {
    throw new BatonError('INSTANCE_UNKNOWN', `instances/${who}.yaml does not exist on ${location.branch}: name the instance as <namespace>/<name>`, { instance: who });
  }
  await checkRequest(tree, `instances/${who}.yaml`, input);
  const worktree = repo.worktree;
  if (worktree !== undefined) {
    // A working clone: commit only the request file, with the user's own git identity.
    mkdirSync(dirname(join(worktree, file)), { recursive: true });
    writeFileSync(join(worktree, file), content);
    await repo.mirror.read(['add', '--', file]);
    await repo.mirror.read(['commit', '--quiet', '-m', message, '--', file]);
    return { id, commit: (await repo.mirror.revParse('HEAD')) ?? '', file, pushed: false };
  }
  const author = input.author ?? { name: 'baton plan trigger', email: 'baton@localhost' };
  let parent = repo.commit;
  for (let attempt = 1; ; attempt++) {
    const base = await repo.store.treeOfCommit(parent);
    const newTree = await writeTreeWith(repo.store, base, new Map([[file, new TextEncoder().encode(content)]]));
    const commit = await writeCommit(repo.store, { tree: newTree, parents: [parent], message, author });
    try {
      await repo.mirror.push(commit, location.branch);
      return { id, commit, file, pushed: true };
    } catch (err) {
      if (!(err instanceof GitPushRejectedError) || attempt >= 5) throw err;
      parent = (await repo.mirror.fetch(location.branch)) ?? parent;
    }
  }
}
