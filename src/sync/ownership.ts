import type { PushTurn } from './push-turn/index.js';

/**
 * Which instances an agent may act on. One agent alone acts on every instance; a shard member
 * (src/shards/) only on its share, and only while no other live member still claims it.
 */
export interface OwnershipSnapshot {
  /** Changes whenever what `mayAct` or `claims` answer may have changed. */
  readonly version: number;
  /** This agent may start work on the instance (`namespace/name`) now. */
  mayAct(id: string): boolean;
  /** The instance is this agent's under the member set it acts under (it may still wait for another member to let go of it). */
  claims(id: string): boolean;
}

export interface InstanceOwnership {
  readonly version: number;
  /** Answers as of now (a worker about to start checks this). */
  mayAct(id: string): boolean;
  /** A frozen copy, so one pass decides with one answer (taken before the pass fetches). */
  snapshot(): OwnershipSnapshot;
  /** How many agents push status to the branch now (a shard set's members in this one's view); 1 when absent. */
  pushers?(): number;
  /** The turns the agents pushing to the branch take (a shard set's); absent: this agent pushes alone. */
  readonly pushTurn?: PushTurn;
}
