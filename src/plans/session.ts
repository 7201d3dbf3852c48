/**
 * The one place the checkpoint is written during a reconcile: updates are serialised (parallel
 * steps finish concurrently) and each write is announced as a `checkpoint` event.
 */
import type { Checkpoint, CheckpointStore } from './checkpoint.js';
import type { EventListener } from './events.js';

export class CheckpointSession {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: CheckpointStore,
    private current: Checkpoint,
    private version: string | undefined,
    private readonly emit: EventListener,
  ) {}

  get checkpoint(): Checkpoint {
    return this.current;
  }

  /** Applies `change` to the latest checkpoint and saves it; resolves once saved. */
  update(change: (cp: Checkpoint) => Checkpoint): Promise<void> {
    const next = this.chain.then(async () => {
      const updated = change(this.current);
      this.version = await this.store.save(updated, this.version);
      this.current = updated;
      this.emit({ type: 'checkpoint', instance: updated.instance, checkpoint: updated });
    });
    // A failed save fails this update; later updates still run against the last saved state.
    this.chain = next.catch(() => undefined);
    return next;
  }

  async remove(): Promise<void> {
    await this.chain;
    await this.store.remove(this.current.instance);
  }
}
