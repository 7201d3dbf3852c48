/**
 * Children's records in a shard member (docs/scale-out.md, "Children of Instance tasks"). A child of an
 * Instance task has no instance file and is only ever written by its parent's worker, so its record goes
 * with its parent's: the member that acts on the parent reads the child's status file from the branch
 * when the parent's worker first meets the child (a run or a removal), keeps it while it holds the
 * parent, and drops it when it lets the parent go. The child's own id never competes for ownership: by
 * its own hash it may fall in another member's share, which neither reads nor keeps it.
 *
 * Read when met, not when the parent is taken: which children a parent has is known only by rendering
 * it, and reading every status file of a namespace to find them would cost what a share must not (a
 * member reads only what it acts on).
 */
import { errorMessage } from '../errors.js';
import { parseStatus, statusPath, type InstanceKey, type InstanceStatus } from './status-file.js';
import { keyString } from './scan.js';

/** Where the child's record is read and kept: the agent's records and the branch its previous owner pushed to. */
export interface ChildRecordStore {
  get(id: string): InstanceStatus | undefined;
  set(id: string, status: InstanceStatus): void;
  /** The child's status file at the tip of the status branch, if any. */
  readFile(path: string): Promise<string | undefined>;
  warn(message: string): void;
}

export class ChildRecords {
  /** Each child whose record this member holds (read when met, or written since), with its parent's id. */
  private readonly parents = new Map<string, string>();

  /** The parent of a child this member holds the record of; undefined for anything else. */
  parentOf(id: string): string | undefined {
    return this.parents.get(id);
  }

  /**
   * The child's record, as the parent's worker meets the child: the one this member holds, or else the
   * one on the branch (what the parent's previous owner pushed before letting go, or what a lost owner
   * pushed last; an unfinished plan's missing transitions are derived from the checkpoint, as for any
   * instance). From now on the record is held with the parent, written or not.
   */
  async meet(child: InstanceKey, parent: InstanceKey, store: ChildRecordStore): Promise<InstanceStatus | undefined> {
    const id = keyString(child);
    if (this.parents.has(id)) return store.get(id);
    const path = statusPath(child);
    let status: InstanceStatus | undefined;
    try {
      const text = await store.readFile(path);
      status = text === undefined ? undefined : parseStatus(text, path);
    } catch (err) {
      // As a status file that does not parse at load: ignored (the child is recorded as new).
      store.warn(`ignoring ${path}: ${errorMessage(err)}`);
    }
    // The file may name another parent: a child its owner removed (its status file went with it) and
    // this parent created again since; a child another parent owns never gets here (compose/children/claim.ts).
    if (status !== undefined) store.set(id, status);
    this.parents.set(id, keyString(parent));
    return status;
  }

  /** Lets go of the children of the parents `keep` no longer accepts; their ids (their records are dropped by the caller). */
  release(keep: (parent: string) => boolean): string[] {
    const gone: string[] = [];
    for (const [child, parent] of this.parents) {
      if (keep(parent)) continue;
      this.parents.delete(child);
      gone.push(child);
    }
    return gone;
  }

  clear(): void {
    this.parents.clear();
  }
}
