/** `baton plan trigger`: a commit that appends a `trigger` request (request-commit.ts) naming a plan to run once. */
import type { Identity } from '../git/write.js';
import { BatonError } from '../errors.js';
import { loadInstance, loadInstanceFramework, type FileTree } from '../render/index.js';
import { checkPlanArgs } from '../render/plan-args.js';
import type { RepoLocation } from './repo-access.js';
import { commitRequest } from './request-commit.js';
import type { InstanceKey } from './status-file.js';

export interface TriggerInput {
  instance: InstanceKey;
  plan: string;
  args: Record<string, string>;
  reason?: string;
  author?: Identity;
  now?: Date;
}

export interface TriggerResult {
  id: string;
  commit: string;
  file: string;
  pushed: boolean;
}

export async function triggerPlan(location: RepoLocation, input: TriggerInput): Promise<TriggerResult> {
  const { id, commit, file, pushed } = await commitRequest(location, {
    instance: input.instance,
    request: { action: 'trigger', plan: input.plan, args: input.args, ...(input.reason ? { reason: input.reason } : {}) },
    ...(input.author ? { author: input.author } : {}),
    ...(input.now ? { now: input.now } : {}),
    check: (tree) => checkTrigger(tree, `instances/${input.instance.namespace}/${input.instance.name}.yaml`, input),
  });
  return { id, commit, file, pushed };
}

/**
 * The plan and its arguments checked against the instance's framework version at the commit the
 * request is added to, so a misspelt plan or argument is refused now rather than by the agent after
 * the push. An instance or framework that does not load is left to the agent (it reports it in status).
 */
async function checkTrigger(tree: FileTree, file: string, input: TriggerInput): Promise<void> {
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
