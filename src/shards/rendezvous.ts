/**
 * Rendezvous (highest random weight) hashing: an instance belongs to the member whose hash of
 * (member, instance) is highest. A member joining takes only the instances it now wins; a member
 * leaving hands only its own instances to the others: everything else stays where it was.
 */
import { createHash } from 'node:crypto';

function score(member: string, key: string): bigint {
  return createHash('sha256').update(member).update('\0').update(key).digest().readBigUInt64BE(0);
}

/** The owner of `key` among `members` (undefined when there are none). Ties go to the smaller name. */
export function rendezvousOwner(key: string, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1n;
  for (const m of members) {
    const s = score(m, key);
    if (s > bestScore || (s === bestScore && best !== undefined && m < best)) {
      best = m;
      bestScore = s;
    }
  }
  return best;
}

/**
 * One member set's assignment, remembered per instance key: a view is asked about every instance on
 * every pass, so each key is hashed once per view, not once per look.
 */
export class Assignment {
  readonly members: readonly string[];
  readonly id: string;
  private readonly cache = new Map<string, string | undefined>();

  constructor(members: Iterable<string>) {
    this.members = [...new Set(members)].sort();
    this.id = this.members.join(',');
  }

  ownerOf(key: string): string | undefined {
    if (this.cache.has(key)) return this.cache.get(key);
    const owner = rendezvousOwner(key, this.members);
    this.cache.set(key, owner);
    return owner;
  }
}
