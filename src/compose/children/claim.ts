/**
 * Who owns a child of an Instance task: the parent that created it, recorded in the child's checkpoint
 * (`parent`), until that parent removes it. Without this two parents of one namespace rendering a
 * child of the same name would both reconcile it (flapping plans between their values, both writing its
 * status file) and removing either would remove the other's child.
 *
 * The claim is an optimistic write of the checkpoint: created with the owner when there is none (two
 * parents creating the child at once: one create wins, the other reads the winner and is refused), or
 * the owner added to a checkpoint written before owners were recorded (adopted by the first parent that
 * runs or removes it; a concurrent adoption conflicts the same way).
 */
import { CheckpointConflictError, emptyCheckpoint, type CheckpointStore, type ChildParent, type InstanceKey, type StoredCheckpoint } from '../../plans/checkpoint.js';

export type ChildClaim =
  /** The child is this parent's: `stored` is its checkpoint as just read or written (none on a read-only look at a child that does not exist). */
  | { kind: 'mine'; stored: StoredCheckpoint | undefined }
  | { kind: 'taken'; owner: ChildParent };

/** Conflicting writes before giving up: each one means another process just wrote the checkpoint. */
const CLAIM_ATTEMPTS = 5;

/** What the checkpoint says, without writing: a child another parent owns is `taken`. */
export function ownerOf(stored: StoredCheckpoint | undefined, parent: ChildParent): ChildClaim {
  const owner = stored?.checkpoint.parent;
  return owner !== undefined && owner.instance !== parent.instance ? { kind: 'taken', owner } : { kind: 'mine', stored };
}

/**
 * Makes the child `parent`'s if nobody else owns it: creates its checkpoint naming the parent (unless
 * `create` is false: a removal creates nothing), or records the parent in an ownerless one (or the
 * task, when the parent's task was renamed).
 */
export async function claimChild(store: CheckpointStore, child: InstanceKey, framework: string, parent: ChildParent, create = true): Promise<ChildClaim> {
  for (let attempt = 1; ; attempt++) {
    const stored = await store.load(child);
    const seen = ownerOf(stored, parent);
    if (seen.kind === 'taken' || (stored === undefined && !create)) return seen;
    if (stored !== undefined && stored.checkpoint.parent?.task === parent.task) return seen;
    const checkpoint = { ...(stored?.checkpoint ?? emptyCheckpoint(child, framework)), parent: { ...parent } };
    try {
      return { kind: 'mine', stored: { checkpoint, version: await store.save(checkpoint, stored?.version) } };
    } catch (err) {
      if (!(err instanceof CheckpointConflictError) || attempt >= CLAIM_ATTEMPTS) throw err;
    }
  }
}
