/**
 * The fence of a leader: whether this process may still act on the cluster and push status. Every
 * write checks it just before it goes out. It holds as long as the local monotonic clock is short of
 * the last renewal plus the renew deadline; a renewal counts only if its request left before that
 * deadline. So a process paused (SIGSTOP, a stalled VM) past its deadline notices, the moment it runs
 * again, that it may no longer act, before any write: even if its renewal timer has not fired yet, and
 * even if the wall clock was changed meanwhile. Once lost, a fence stays lost (the agent exits and a
 * new one waits for the lease again).
 */
import { BatonError } from '../errors.js';
import { monotonicMs, type FenceSide, type SharedFenceCell } from './shared-fence.js';

/** What a fenced write asks: may this process act now, and under which lease term. */
export interface Fence {
  /** Throws FenceLostError when this process may not act any more. `what` names the write. */
  check(what: string): void;
  /** The lease term the writes belong to (the Lease's leaseTransitions when acquired). */
  readonly term: number | undefined;
}

export class FenceLostError extends BatonError {
  constructor(what: string, why: string) {
    super('AGENT_FENCED', `refusing to ${what}: ${why}; another agent may be leading now`, { what, why });
  }
}

export interface LeaseFenceOptions {
  /** A leader that has not renewed for this long must stop acting. */
  renewDeadlineMs: number;
  /** Monotonic milliseconds (default monotonicMs). */
  now?: () => number;
  /**
   * The fence's state shared with the thread that renews the lease (shards/lease-renewer/): each check
   * reads that thread's latest renewal and loss, and a loss found here stops its renewals. The clock
   * must then be monotonicMs, the one both threads read.
   */
  shared?: { cell: SharedFenceCell; side: FenceSide };
}

type FenceState =
  | { kind: 'unheld' }
  | { kind: 'held'; term: number; until: number }
  | { kind: 'lost'; why: string };

export class LeaseFence implements Fence {
  readonly now: () => number;
  private state: FenceState = { kind: 'unheld' };
  private readonly listeners: Array<(why: string) => void> = [];

  constructor(private readonly options: LeaseFenceOptions) {
    this.now = options.now ?? monotonicMs;
  }

  get term(): number | undefined {
    this.sync();
    return this.state.kind === 'held' ? this.state.term : undefined;
  }

  /** True while writes may go out. */
  get valid(): boolean {
    this.sync();
    return this.state.kind === 'held' && this.now() < this.state.until;
  }

  /** The renew deadline of the last renewal (this fence's clock), while held. */
  get until(): number | undefined {
    this.sync();
    return this.state.kind === 'held' ? this.state.until : undefined;
  }

  get isLost(): boolean {
    this.expireIfDue();
    return this.state.kind === 'lost';
  }

  /**
   * The lease was acquired or renewed by a request that left at `sentAt` (this fence's clock), for
   * lease term `term`. A renewal sent after the deadline had passed does not bring the fence back.
   */
  renewed(sentAt: number, term: number): void {
    this.expireIfDue();
    if (this.state.kind === 'lost') return;
    if (this.state.kind === 'held' && this.state.term !== term) {
      this.lose(`the lease term changed from ${this.state.term} to ${term}`);
      return;
    }
    this.state = { kind: 'held', term, until: sentAt + this.options.renewDeadlineMs };
    this.options.shared?.cell.publishHeld(term, this.state.until);
  }

  /** The elector stepped down (another holder, or no renewal in time). */
  lose(why: string): void {
    if (this.state.kind === 'lost') return;
    this.options.shared?.cell.lose(this.options.shared.side, why);
    this.state = { kind: 'lost', why };
    for (const listen of this.listeners.splice(0)) listen(why);
  }

  /** Called once, when the fence is found lost (by a check, the elector, or a renewal too late). */
  onLost(listener: (why: string) => void): void {
    if (this.state.kind === 'lost') listener(this.state.why);
    else this.listeners.push(listener);
  }

  check(what: string): void {
    // A main thread that checks is running agent code: that is its heartbeat to the renewer thread too
    // (a loop turn of many callbacks may run no timer for seconds under load).
    if (this.options.shared?.side === 'main') this.options.shared.cell.beat(this.now());
    this.expireIfDue();
    if (this.state.kind === 'held') return;
    throw new FenceLostError(what, this.state.kind === 'lost' ? this.state.why : 'this agent does not hold the leader lease');
  }

  /**
   * Takes the shared state (the other thread's renewals and losses) when there is one. A renewal under
   * another term than the one held is a loss, as in `renewed`.
   */
  private sync(): void {
    const shared = this.options.shared;
    if (shared === undefined || this.state.kind === 'lost') return;
    const theirs = shared.cell.read();
    if (theirs.kind === 'lost') this.lose(theirs.why);
    else if (theirs.kind === 'held') {
      if (this.state.kind === 'held' && this.state.term !== theirs.term) this.lose(`the lease term changed from ${this.state.term} to ${theirs.term}`);
      else this.state = { kind: 'held', term: theirs.term, until: theirs.until };
    }
  }

  private expireIfDue(): void {
    this.sync();
    if (this.state.kind !== 'held') return;
    const late = this.now() - this.state.until;
    if (late >= 0) this.lose(`no lease renewal within the renew deadline (${this.options.renewDeadlineMs} ms; ${Math.round(late)} ms past it, the process may have been paused)`);
  }
}

/** For an agent without leader election: every write may go out, and commits carry no term. */
export const unfenced: Fence = { check: () => undefined, term: undefined };
