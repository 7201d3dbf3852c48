/**
 * The agent's statuses by instance key (a Map), which also knows the instances whose last plan failed
 * with a retry time: the agent asks for those at every idle poll (when is a retry due?), and walking
 * every status for them cost ~0.25 ms of a ~11 ms poll at 10,000 instances (issue #20: an idle poll
 * within 1.2x a `git fetch`).
 */
import type { InstanceStatus } from './status-file.js';

export class StatusMap extends Map<string, InstanceStatus> {
  /** Keys of statuses (not children's: their parent retries them) with `sync.failure.nextRetryAt`. */
  private readonly retrying = new Set<string>();

  override set(key: string, status: InstanceStatus): this {
    // Map's constructor may call set before the field exists; this map is always made empty.
    if (status.parent === undefined && status.sync?.failure?.nextRetryAt !== undefined) this.retrying.add(key);
    else this.retrying.delete(key);
    return super.set(key, status);
  }

  override delete(key: string): boolean {
    this.retrying.delete(key);
    return super.delete(key);
  }

  override clear(): void {
    this.retrying.clear();
    super.clear();
  }

  /** The statuses with a retry time, as [key, status] (a subset of the entries, in no set order). */
  *withRetryTime(): IterableIterator<[string, InstanceStatus]> {
    for (const key of this.retrying) {
      const status = super.get(key);
      if (status !== undefined) yield [key, status];
    }
  }
}
