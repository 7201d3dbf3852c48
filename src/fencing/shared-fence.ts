/**
 * A fence's state in shared memory, for a Lease renewed by another thread (shards/lease-renewer/):
 * the renewer thread publishes each renewal's deadline, either side can mark the fence lost, and the
 * main thread publishes a heartbeat the renewer reads before every renewal. Shared memory, not
 * messages: a main thread that was busy reads the renewer's latest renewal the moment it checks, with
 * no message queued behind its own work, and a renewer reads a stuck main thread's silence without
 * its cooperation. Every time is `monotonicMs` (the same clock in every thread of the process).
 *
 * Layout: four 64-bit cells (state, term, until in microseconds, heartbeat in microseconds), then one
 * region per side for the reason of a loss, written before that side's state change.
 */

/** Milliseconds of the process's monotonic clock: the same in every thread (performance.now is not: it counts from each thread's start). */
export const monotonicMs = (): number => Number(process.hrtime.bigint() / 1000n) / 1000;

export type SharedFenceState = { kind: 'unheld' } | { kind: 'held'; term: number; until: number } | { kind: 'lost'; why: string };

/** Which thread marks a loss (each writes its reason in a region of its own). */
export type FenceSide = 'main' | 'renewer';

const STATE = 0;
const TERM = 1;
const UNTIL = 2;
const HEARTBEAT = 3;
const CELLS = 4;
const UNHELD = 0n;
const HELD = 1n;
const LOST_BY_MAIN = 2n;
const LOST_BY_RENEWER = 3n;
const WHY_BYTES = 1024;

const us = (ms: number): bigint => BigInt(Math.round(ms * 1000));
const ms = (micro: bigint): number => Number(micro) / 1000;

export class SharedFenceCell {
  private readonly cells: BigInt64Array;
  private readonly why: Record<FenceSide, Uint8Array>;

  /** A new cell, or one another thread made (its `buffer`). */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(CELLS * 8 + 2 * (4 + WHY_BYTES))) {
    this.cells = new BigInt64Array(buffer, 0, CELLS);
    this.why = {
      main: new Uint8Array(buffer, CELLS * 8, 4 + WHY_BYTES),
      renewer: new Uint8Array(buffer, CELLS * 8 + 4 + WHY_BYTES, 4 + WHY_BYTES),
    };
  }

  read(): SharedFenceState {
    const state = Atomics.load(this.cells, STATE);
    if (state === HELD) return { kind: 'held', term: Number(Atomics.load(this.cells, TERM)), until: ms(Atomics.load(this.cells, UNTIL)) };
    if (state === LOST_BY_MAIN) return { kind: 'lost', why: this.reason('main') };
    if (state === LOST_BY_RENEWER) return { kind: 'lost', why: this.reason('renewer') };
    return { kind: 'unheld' };
  }

  /**
   * The renewer's latest renewal: writes may go out until `until`. The term is written once (a renewal
   * under another term is a loss, never published); a cell already lost stays lost.
   */
  publishHeld(term: number, until: number): void {
    if (Atomics.load(this.cells, STATE) === UNHELD) {
      Atomics.store(this.cells, TERM, BigInt(term));
      Atomics.store(this.cells, UNTIL, us(until));
      Atomics.compareExchange(this.cells, STATE, UNHELD, HELD);
      return;
    }
    Atomics.store(this.cells, UNTIL, us(until));
  }

  /** Marks the fence lost for good (the first side to do so gives the reason). */
  lose(side: FenceSide, why: string): void {
    const region = this.why[side];
    const bytes = new TextEncoder().encode(why).subarray(0, WHY_BYTES);
    region.set(bytes, 4);
    new DataView(region.buffer, region.byteOffset, 4).setUint32(0, bytes.length);
    const lost = side === 'main' ? LOST_BY_MAIN : LOST_BY_RENEWER;
    for (const from of [UNHELD, HELD]) if (Atomics.compareExchange(this.cells, STATE, from, lost) === from) return;
  }

  /** The main thread is alive (its event loop turns). */
  beat(now: number = monotonicMs()): void {
    Atomics.store(this.cells, HEARTBEAT, us(now));
  }

  /** When the main thread last beat (0 before its first beat). */
  lastBeat(): number {
    return ms(Atomics.load(this.cells, HEARTBEAT));
  }

  private reason(side: FenceSide): string {
    const region = this.why[side];
    const length = new DataView(region.buffer, region.byteOffset, 4).getUint32(0);
    return new TextDecoder().decode(region.slice(4, 4 + length));
  }
}
