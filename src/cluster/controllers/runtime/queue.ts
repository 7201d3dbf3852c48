/**
 * A work queue as client-go has it: a key is queued at most once, never processed by two workers at
 * the same time (a key added while it is processed is processed again afterwards), and can be added
 * after a delay. Keys are `namespace/name` (or `name` for cluster-scoped objects).
 */
import type { Clock, Timer } from './clock.js';

export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly order: string[] = [];
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly delayed = new Map<string, { at: number; timer: Timer }>();
  private waiters: (() => void)[] = [];
  private closed = false;
  private onDone: (() => void) | undefined;

  constructor(private readonly clock: Clock) {}

  add(key: string): void {
    if (this.closed) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.order.push(key);
    this.wake();
  }

  /** Adds the key after `ms`; an earlier pending delay for the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.closed) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    pending?.timer.cancel();
    const timer = this.clock.setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, timer });
  }

  /** The next key to process, or undefined once the queue is closed. Call `done(key)` afterwards. */
  async next(): Promise<string | undefined> {
    for (;;) {
      if (this.closed) return undefined;
      const key = this.order.shift();
      if (key !== undefined) {
        this.queued.delete(key);
        this.processing.add(key);
        return key;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
    this.onDone?.();
  }

  get length(): number {
    return this.order.length;
  }

  /** Nothing queued, in flight or due after a delay within `horizonMs` from now (a closed queue is idle). */
  idleWithin(horizonMs: number): boolean {
    if (this.closed) return true;
    if (this.order.length > 0 || this.processing.size > 0) return false;
    const until = this.clock.now() + horizonMs;
    for (const { at } of this.delayed.values()) if (at <= until) return false;
    return true;
  }

  /** Called after every `done` and on close: the moments a queue can become idle. */
  whenDone(listener: () => void): void {
    this.onDone = listener;
  }

  close(): void {
    this.closed = true;
    for (const { timer } of this.delayed.values()) timer.cancel();
    this.delayed.clear();
    this.wake();
    this.onDone?.();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
