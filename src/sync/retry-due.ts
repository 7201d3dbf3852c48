/**
 * When the agent retries a failed desired state (docs/drift.md, "Retries"): once the backoff the engine
 * recorded has passed (the status's `sync.failure.nextRetryAt`), or at once when a new commit arrives
 * (someone may have fixed what it needed: a CRD, a quota, a Secret). The engine decides again from its
 * checkpoint; this only says when to look.
 */
import type { CommitTree } from '../git/tree.js';
import { loadSettings, type SyncSettingsDecl } from '../render/index.js';
import type { InstanceStatus } from './status-file.js';

export function retryDue(previous: InstanceStatus | undefined, now: Date, newCommit: boolean): { reason: string; now: boolean } | undefined {
  const failure = previous?.sync?.failure;
  if (previous?.sync?.status !== 'Failed' || failure === undefined) return undefined;
  if (newCommit) return { reason: `retry of the failed ${failure.plan} (a new commit)`, now: true };
  if (Date.parse(failure.nextRetryAt) <= now.getTime()) return { reason: `retry ${failure.attempts + 1} of the failed ${failure.plan}`, now: false };
  return undefined;
}

/** What the desired state of a commit is made of; the agent's status commits never change it. */
const CONTENT = ['instances', 'frameworks', 'requests', 'baton.yaml'];

export async function contentKeyOf(tree: CommitTree): Promise<string> {
  const ids = await Promise.all(CONTENT.map((p) => tree.id(p)));
  return ids.map((id) => id ?? '-').join(':');
}

/** baton.yaml's `sync:` at a commit; a broken baton.yaml means the defaults (the agent logs it at start). */
export async function repositorySyncAt(tree: CommitTree): Promise<SyncSettingsDecl | undefined> {
  const loaded = await loadSettings(tree).catch(() => undefined);
  return loaded?.ok ? loaded.value.decl.sync : undefined;
}
