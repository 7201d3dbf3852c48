/** `baton plan trigger`: a commit that appends a `trigger` request (request-commit.ts) naming a plan to run once. */
import type { Identity } from '../git/write.js';
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
  });
  return { id, commit, file, pushed };
}
