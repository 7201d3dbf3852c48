/**
 * Push turns: the members of a shard set take turns pushing status commits to their one branch
 * (issue #20). Without turns every member pushed when it had something, lost the race whenever another
 * member pushed between its fetch and its push, and a member with a large backlog (a long rebuild)
 * lost every race for minutes. With a turn, one member pushes at a time, in the order they asked
 * (first come, first served), and the holder learns the branch tip its predecessor pushed, so its push
 * is rebuilt on the current tip before it is sent: it goes through at the first attempt.
 *
 * A turn is a courtesy, never a safety device: Git's refusal of a non-fast-forward push still guards
 * the record. Two members that both believe they hold the turn (a holder counted gone while it was
 * only slow) cost one rejected push, as before, nothing else.
 */
export { LeasePushTurn, pushTurnLeaseName, PUSH_QUEUE_ANNOTATION, PUSH_TIP_ANNOTATION, type LeasePushTurnOptions } from './lease-turn.js';

/** A turn this writer holds: pushes now go to the branch alone. */
export interface HeldTurn {
  /** The branch tip the previous holder pushed (undefined: not known, e.g. the first turn ever). */
  readonly tip: string | undefined;
  /** Gives the turn to the next member waiting; `tip` is what this holder pushed (undefined: nothing). Never throws. */
  release(tip: string | undefined): Promise<void>;
}

export interface PushTurn {
  /** Waits for this member's turn (in the order asked). Throws when the signal aborts. */
  take(signal?: AbortSignal): Promise<HeldTurn>;
  /** A stopping member: leaves the queue and hands on a turn it holds. Never throws. */
  leave(): Promise<void>;
}
