/**
 * `baton agent --shard-set NAME`: the agent loop as one member of a shard set. The member's lease
 * fences every cluster write and status push of this replica; the agent acts only on the member's
 * share; a view change first lets go of the instances it takes away (see member.ts).
 */
import type { Fence } from '../fencing/index.js';
import type { GitMirror } from '../git/mirror.js';
import { trackingRef } from '../git/mirror.js';
import type { KubeClient } from '../kube/client.js';
import { DEFAULT_LEASE_NAMESPACE } from '../sync/leader.js';
import type { AgentSettings } from '../sync/settings.js';
import type { LeaseClientOptions } from './lease-renewer/index.js';
import { ShardMember, type ShardLog } from './member.js';

/**
 * The agent's shard member. With `clientOptions` (the agent's) its lease is renewed from a thread of
 * its own (lease-renewer/), so a busy event loop does not cost it the lease.
 */
export function shardMemberFor(settings: Pick<AgentSettings, 'repo' | 'branch' | 'statusBranch' | 'leaseNamespace' | 'lease'> & { shardSet: string }, client: KubeClient, log: ShardLog, clientOptions?: LeaseClientOptions): ShardMember {
  return new ShardMember({
    // Its own sockets: membership reads (and in-thread renewals) never queue behind the agent's work in the shared pool.
    client: client.withOwnConnection?.() ?? client, shardSet: settings.shardSet, namespace: settings.leaseNamespace ?? DEFAULT_LEASE_NAMESPACE,
    ...(clientOptions ? { leaseThread: { client: clientOptions } } : {}),
    config: { repo: settings.repo, branch: settings.branch, ...(settings.statusBranch ? { statusBranch: settings.statusBranch } : {}) },
    leaseDurationMs: settings.lease.durationMs, renewDeadlineMs: settings.lease.renewDeadlineMs, retryPeriodMs: settings.lease.retryPeriodMs, log,
  });
}

/**
 * The fence status pushes check. Member leases are not one lease whose term grows, so status commits
 * carry no `Baton-Lease-Term` (a term 0 of every member would read as stale next to a former leader's).
 */
export const termlessFence = (fence: Fence): Fence => ({ check: (what) => fence.check(what), term: undefined });

/** What the agent does for its member: let go of instances, poll at once on a change. */
export interface MemberAgent {
  release(keep: (id: string) => boolean): Promise<void>;
  readonly writer: { readonly pendingRef: string };
}

/**
 * Runs `loop` as a member; 0 when it ended normally, 1 when the member was refused (another
 * configuration joined first) or lost its lease.
 */
export async function runAsShardMember(
  member: ShardMember, agent: MemberAgent, mirror: GitMirror, branch: string, wake: () => void, log: ShardLog,
  loop: (signal: AbortSignal) => Promise<number>, signal?: AbortSignal,
): Promise<number> {
  await discardUnpushed(mirror, agent.writer.pendingRef, branch, log);
  member.onRelease((keep) => agent.release(keep));
  member.onChange(wake);
  let code = 0;
  const result = await member.run(async (s) => { code = await loop(s); }, signal);
  if (result.kind === 'refused') {
    log('error', result.error.message, { code: result.error.code });
    return 1;
  }
  if (result.kind === 'lost') {
    log('error', `lost the member lease (${result.why}); exiting so that a restarted agent joins again as a new member`);
    return 1;
  }
  return code;
}

/**
 * Status commits a previous process of this replica left unpushed are dropped: that member is gone,
 * its instances were (or will be) taken over, and their new owner records the missing transitions
 * from the checkpoints; pushing the old commits as well would record them twice.
 */
async function discardUnpushed(mirror: GitMirror, pendingRef: string, branch: string, log: ShardLog): Promise<void> {
  const pending = await mirror.revParse(pendingRef);
  if (pending === undefined) return;
  const remote = await mirror.revParse(trackingRef(branch));
  const count = (await mirror.read(['rev-list', '--count', pending, ...(remote ? ['--not', remote] : [])])).trim();
  await mirror.setRef(pendingRef, undefined);
  log('warn', `dropped ${count} status commits a previous process of this replica left unpushed: the instances' new owners record those transitions from the checkpoints`);
}
