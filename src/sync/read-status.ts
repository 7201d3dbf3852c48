/**
 * `readGitStatus`: an instance's status as the agent last committed it (for `baton plan status`,
 * which compares it with the cluster checkpoint and shows the newer).
 */
import { openRepository, type RepoLocation } from './repo-access.js';
import { parseStatus, statusPath, type InstanceKey, type InstanceStatus } from './status-file.js';

export interface GitStatusLocation extends RepoLocation {
  /** Read from this branch instead of `branch` (the agent's --status-branch). */
  statusBranch?: string;
}

export type GitStatusResult =
  | { found: true; status: InstanceStatus; commit: string; file: string }
  | { found: false; reason: string; file: string };

export async function readGitStatus(location: GitStatusLocation, instance: InstanceKey): Promise<GitStatusResult> {
  const file = statusPath(instance);
  const branch = location.statusBranch ?? location.branch;
  const repo = await openRepository({ ...location, branch });
  if (repo.commit === undefined) return { found: false, reason: `branch ${branch} does not exist in ${location.repo}`, file };
  const text = await (await repo.store.at(repo.commit)).readText(file);
  if (text === undefined) return { found: false, reason: `no ${file} on ${branch}: the agent has not reported on this instance yet`, file };
  return { found: true, status: parseStatus(text, file), commit: repo.commit, file };
}
