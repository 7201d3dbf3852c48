/** Shards: several agent replicas share one repository, each acting on its share of the instances (docs/scale-out.md). */
export { ShardMember, configHashOf, configTextOf, type ShardConfig, type ShardMemberOptions, type ShardResult, type ShardLog } from './member.js';
export { ShardError } from './errors.js';
export { Assignment, rendezvousOwner } from './rendezvous.js';
export { MembershipObserver, type Member } from './membership.js';
export { MemberLease, memberIdOf, memberLeaseName, SHARD_SET_LABEL, CONFIG_HASH_ANNOTATION, VIEW_ANNOTATION } from './member-lease.js';
