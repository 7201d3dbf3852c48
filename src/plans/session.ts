/**
 * The one place the checkpoint is written during a reconcile: updates are serialised (parallel
 * steps finish concurrently) and each write is announced as a `checkpoint` event.
 */
import type { Checkpoint, CheckpointStore } from './checkpoint.js';
import type { EventListener } from './events.js';
import type { PlanRun, RunState } from './state.js';

/** Hides sensitive values in a message (identity when the instance has none). */
export type TextMask = (text: string) => string;

export class CheckpointSession {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: CheckpointStore,
    private current: Checkpoint,
    private version: string | undefined,
    private readonly emit: EventListener,
    /**
     * Applied to every message of the checkpoint before it is saved: an API error that quotes a
     * sensitive value must not reach the checkpoint ConfigMap (or `baton plan status`) in clear.
     */
    private readonly mask: TextMask = (t) => t,
  ) {}

  get checkpoint(): Checkpoint {
    return this.current;
  }

  /** Applies `change` to the latest checkpoint and saves it; resolves once saved. */
  update(change: (cp: Checkpoint) => Checkpoint): Promise<void> {
    const next = this.chain.then(async () => {
      const updated = maskCheckpoint(change(this.current), this.mask);
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

/** The checkpoint with its messages masked; ids, names and hashes stay exact. */
export function maskCheckpoint(cp: Checkpoint, mask: TextMask): Checkpoint {
  return {
    ...cp,
    ...(cp.active ? { active: maskRun(cp.active, mask) } : {}),
    history: cp.history.map((r) => maskRun(r, mask)),
    ...(cp.refusal ? { refusal: { ...cp.refusal, message: mask(cp.refusal.message) } } : {}),
  };
}

function maskRun(run: PlanRun, mask: TextMask): PlanRun {
  return {
    ...run,
    reason: mask(run.reason),
    state: maskState(run.state, mask),
    phases: run.phases.map((ph) => ({ ...ph, state: maskState(ph.state, mask), steps: ph.steps.map((st) => ({ ...st, state: maskState(st.state, mask) })) })),
  };
}

function maskState(state: RunState, mask: TextMask): RunState {
  if (state.status === 'NEVER_RUN') return state;
  const masked = { ...state, message: mask(state.message) };
  return 'error' in masked ? { ...masked, error: { ...masked.error, message: mask(masked.error.message) } } : masked;
}
