/**
 * The one place the checkpoint is written during a reconcile: updates are serialised (parallel
 * steps finish concurrently) and each write is announced as a `checkpoint` event. A write that fails
 * with a transient error (a 503, a reset connection) is retried like any other transient failure
 * (the hooks' classification and backoff, a bounded number of times, not after the signal aborted),
 * so one bad answer from the API server does not break off a whole plan.
 */
import { CheckpointConflictError, type Checkpoint, type CheckpointStore } from './checkpoint.js';
import type { Clock } from './clock.js';
import type { EventListener } from './events.js';
import { classifyWith, type EngineHooks } from './hooks.js';
import type { PlanRun, RunState } from './state.js';
import { differOnlyInRequests, withRequestsOf } from './request-merge.js';

/** Writes of request records beside one checkpoint write that it goes on top of (each is one refusal batch). */
const MERGE_ATTEMPTS = 10;

/** Hides sensitive values in a message (identity when the instance has none). */
export type TextMask = (text: string) => string;

/** Attempts of one checkpoint write by default: with the default backoff, about 8 s of retrying. */
export const CHECKPOINT_WRITE_ATTEMPTS = 5;

export interface SessionRetry {
  hooks: EngineHooks;
  clock: Clock;
  /** Once aborted, a failed write is not tried again. */
  signal?: AbortSignal;
  /** Attempts per write (default CHECKPOINT_WRITE_ATTEMPTS). */
  attempts?: number;
}

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
    private readonly retry?: SessionRetry,
  ) {}

  get checkpoint(): Checkpoint {
    return this.current;
  }

  /** Applies `change` to the latest checkpoint and saves it; resolves once saved. */
  update(change: (cp: Checkpoint) => Checkpoint): Promise<void> {
    const next = this.chain.then(async () => {
      const saved = await this.save(maskCheckpoint(change(this.current), this.mask));
      this.version = saved.version;
      this.current = saved.checkpoint;
      this.emit({ type: 'checkpoint', instance: saved.checkpoint.instance, checkpoint: saved.checkpoint });
    });
    // A failed save fails this update; later updates still run against the last saved state.
    this.chain = next.catch(() => undefined);
    return next;
  }

  async remove(): Promise<void> {
    await this.chain;
    await this.store.remove(this.current.instance);
  }

  private async save(first: Checkpoint): Promise<{ checkpoint: Checkpoint; version: string }> {
    let checkpoint = first;
    let version = this.version;
    let merges = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return { checkpoint, version: await this.store.save(checkpoint, version) };
      } catch (err) {
        if (err instanceof CheckpointConflictError) {
          const stored = await this.store.load(checkpoint.instance);
          // An earlier attempt may have been written although its answer was lost (a 503 from a proxy
          // after the write, a reset connection): the version then moved on to exactly this content.
          if (attempt > 0 && stored !== undefined && JSON.stringify(stored.checkpoint) === JSON.stringify(checkpoint)) return { checkpoint, version: stored.version };
          // The agent recorded operator requests beside the running plan (src/sync/request-lane.ts):
          // nothing else changed, so this write goes on top of those records. Bounded, like any retry.
          if (stored !== undefined && merges < MERGE_ATTEMPTS && differOnlyInRequests(stored.checkpoint, this.current)) {
            merges++;
            checkpoint = withRequestsOf(checkpoint, stored.checkpoint);
            version = stored.version;
            attempt--;
            continue;
          }
        }
        const delay = this.retryDelay(err, attempt);
        if (delay === undefined) throw err;
        await this.retry?.clock.sleep(delay, this.retry.signal).catch(() => {
          throw err;
        });
      }
    }
  }

  /** The pause before the next attempt, or undefined to give up (terminal, out of attempts, aborted). */
  private retryDelay(err: unknown, attempt: number): number | undefined {
    const retry = this.retry;
    if (retry === undefined || retry.signal?.aborted === true || attempt + 1 >= (retry.attempts ?? CHECKPOINT_WRITE_ATTEMPTS)) return undefined;
    const failure = classifyWith(retry.hooks, err);
    return failure.class === 'transient' ? retry.hooks.retryDelayMs(failure, attempt) : undefined;
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
