/**
 * Lease renewal from a thread of its own (node:worker_threads), so that a busy agent keeps its Lease:
 * rendering, YAML, git and status work starve the agent's event loop under load, and renewals on that
 * loop missed their deadline (docs/scale-out.md, "Lease renewals"). Used for a shard member's Lease
 * (`threadedMemberLease`) and the leader Lease (`threadedLeaderElector`).
 *
 * Safety (no two agents act on one instance; a paused leader writes nothing) rests on two rules:
 * - The renewer thread renews only while the main thread's heartbeat (a timer on the main event loop,
 *   and every fence check, written to shared memory) is at most `livenessMs` old. A busy loop still turns and beats; a stuck
 *   or paused one does not, and then the thread gives the Lease up: the fence is lost at once and the
 *   Lease expires as if the process had died.
 * - The main thread's fence reads the renewer's last confirmed renewal from shared memory at every
 *   check (not from a message that could wait behind its own work): writes go out only until that
 *   renewal's send time plus the renew deadline, as before, so the holder still stops acting before
 *   anyone may take the Lease over.
 * A renewer thread that ends unexpectedly (a crash, out of memory) loses the fence, logged as an error:
 * the agent stops acting and exits, as on any loss of its Lease. Lease semantics (what is written,
 * client-go's timing, judging others by the local clock only) are the in-thread code's: the thread
 * runs MemberLease and LeaderElector themselves.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { BatonError } from '../../errors.js';
import { LeaseFence } from '../../fencing/lease-fence.js';
import { SharedFenceCell } from '../../fencing/shared-fence.js';
import { reassertV8Flags } from '../../v8-flags.js';
import { memberIdOf, memberLeaseName, type MemberLeaseHandle } from '../member-lease.js';
import type { FromRenewer, LeaseClientOptions, RenewerTask, RenewerWorkerData, ToRenewer, WireError } from './protocol.js';

export type { LeaseClientOptions } from './protocol.js';

export type RenewerLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

export interface LeaseThreadOptions {
  /** The options the agent's client was made from: the thread makes its own client from them. */
  client: LeaseClientOptions;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /**
   * The longest the main thread may go without checking in before the thread gives the Lease up.
   * Default: the renew deadline (a main thread silent for as long as renewals may fail loses the Lease,
   * as a process whose renewals failed would; the in-thread renewals lost it sooner).
   */
  livenessMs?: number;
  log: RenewerLog;
}

/** A renewal or release the thread answered with an error (its message and code kept). */
export class LeaseRenewerError extends BatonError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('LEASE_RENEWER', message, context);
  }
}

export const defaultLivenessMs = (o: Pick<LeaseThreadOptions, 'renewDeadlineMs'>): number => o.renewDeadlineMs;

/**
 * The worker: compiled JavaScript beside this file, or the sources (tests, `npm run bench`) through
 * tsx, registered in the thread first (Node 20 does not pass `--import tsx` on to a worker's loader).
 */
function newWorker(workerData: RenewerWorkerData): Worker {
  const here = fileURLToPath(import.meta.url);
  const js = here.replace(/index\.(ts|js)$/, 'worker.js');
  if (here.endsWith('.js') && existsSync(js)) return new Worker(js, { workerData });
  // The ESM build of tsx's API (its CommonJS build looks for its loader in the wrong place).
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/index\.cjs$/, 'index.mjs')).href;
  const source = pathToFileURL(here.replace(/index\.(ts|js)$/, 'worker.ts')).href;
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(code, { eval: true, workerData });
}

/**
 * One renewer thread and its side of the fence. The thread starts at the first request and ends on
 * `stop`, on a loss, or with `close`; it keeps the process alive only while a request or a loop is
 * under way (as the in-thread timers did), never after.
 */
class RenewerThread {
  readonly fence: LeaseFence;
  private readonly cell = new SharedFenceCell();
  private worker: Worker | undefined;
  private readonly beat: NodeJS.Timeout;
  private ids = 0;
  private readonly replies = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private readonly waiters = new Set<(event: 'acquired' | 'halted' | 'ended') => void>();
  private busy = 0;
  private closing = false;
  /** A stop was asked for: the thread's exit that follows is expected, whatever the order it is heard in. */
  private stopping = false;
  private ended = false;
  private heard = false;
  readonly livenessMs: number;

  constructor(private readonly task: RenewerTask, private readonly options: LeaseThreadOptions) {
    this.livenessMs = options.livenessMs ?? defaultLivenessMs(options);
    this.fence = new LeaseFence({ renewDeadlineMs: options.renewDeadlineMs, shared: { cell: this.cell, side: 'main' } });
    this.cell.beat();
    // The heartbeat: it runs when the main event loop turns, however busy, and not when it is stuck.
    this.beat = setInterval(() => this.cell.beat(), Math.max(20, Math.min(500, this.livenessMs / 5)));
    this.beat.unref();
  }

  /** Sends a request the thread answers with `reply`. */
  request(message: { type: 'renew'; view?: string[] } | { type: 'stop'; release: boolean }): Promise<void> {
    const id = ++this.ids;
    return this.holding(new Promise<void>((resolve, reject) => {
      if (this.ended || this.closing) { reject(new LeaseRenewerError('the lease renewer thread has ended', { task: this.task.kind })); return; }
      this.replies.set(id, { resolve, reject });
      this.post({ ...message, id });
    }));
  }

  /** Sends `message` and waits for `event` (or the thread's end). */
  until(message: ToRenewer | undefined, event: 'acquired' | 'halted' | 'ended', signal?: AbortSignal): Promise<'event' | 'ended' | 'aborted'> {
    return this.holding(new Promise((resolve) => {
      if (this.ended || this.closing) { resolve('ended'); return; }
      const done = (result: 'event' | 'ended' | 'aborted'): void => { this.waiters.delete(listen); signal?.removeEventListener('abort', onAbort); resolve(result); };
      const listen = (e: 'acquired' | 'halted' | 'ended'): void => { if (e === event) done('event'); else if (e === 'ended') done('ended'); };
      const onAbort = (): void => done('aborted');
      this.waiters.add(listen);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (message) this.post(message);
      if (signal?.aborted === true) onAbort();
    }));
  }

  /** The thread, once started (diagnostics and tests). */
  get thread(): Worker | undefined {
    return this.worker;
  }

  /** Ends the thread without giving the Lease up (it was lost, or never held). Idempotent. */
  /** Gives the Lease up from the thread, then ends it; never throws (a Lease not given up expires on its own). */
  async releaseAndClose(): Promise<void> {
    // The thread replies and exits at once. When the main loop hears of both in one turn, Node delivers
    // the reply and emits 'exit' synchronously (Worker's exit handler drains the port first), before the
    // awaits below resume and close(): without this flag that exit read as unexpected, a graceful end as
    // a lost Lease (seen under load: leader-thread.test.ts, 'lost' instead of 'aborted').
    this.stopping = true;
    try {
      await this.request({ type: 'stop', release: true });
    } catch {
      // Logged by the thread, or the thread is gone: nothing more to do here.
    } finally {
      this.close();
    }
  }

  close(): void {
    this.closing = true;
    clearInterval(this.beat);
    void this.worker?.terminate();
  }

  private post(message: ToRenewer): void {
    this.start().postMessage(message);
  }

  /** The worker is referenced (keeps the process alive) only while `work` is under way. */
  private async holding<T>(work: Promise<T>): Promise<T> {
    if (this.busy++ === 0) this.worker?.ref();
    try {
      return await work;
    } finally {
      if (--this.busy === 0) this.worker?.unref();
    }
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const { client, renewDeadlineMs, retryPeriodMs } = this.options;
    const worker = newWorker({ task: this.task, client, renewDeadlineMs, retryPeriodMs, livenessMs: this.livenessMs, fence: this.cell.buffer });
    this.worker = worker;
    if (this.busy === 0) worker.unref();
    let failure: string | undefined;
    // The thread's isolate reset the process-wide V8 flags the agent set for its own heap (src/v8-flags.ts):
    // set them again once it runs, and once more at its first message (after its modules loaded: a
    // loader registered there, tsx's in tests and benches from sources, starts one more isolate).
    worker.once('online', () => reassertV8Flags());
    worker.on('message', (m: FromRenewer) => {
      if (!this.heard) { this.heard = true; reassertV8Flags(); }
      this.receive(m);
    });
    worker.on('error', (err) => { failure = err.message; });
    worker.on('exit', (code) => this.exited(code, failure));
    return worker;
  }

  private receive(m: FromRenewer): void {
    switch (m.type) {
      case 'reply': {
        const waiting = this.replies.get(m.id);
        this.replies.delete(m.id);
        if (m.error === undefined) waiting?.resolve();
        else waiting?.reject(errorFrom(m.error));
        return;
      }
      case 'acquired':
      case 'halted':
        for (const listen of [...this.waiters]) listen(m.type);
        return;
      case 'lost':
        // The fence reads the loss from shared memory: `isLost` tells its listeners (the agent's work stops).
        if (!this.fence.isLost) this.fence.lose(m.why);
        this.close();
        return;
      case 'log':
        this.options.log(m.level, m.message, { ...m.fields, thread: 'lease-renewer' });
        return;
    }
  }

  private exited(code: number, failure: string | undefined): void {
    this.ended = true;
    clearInterval(this.beat);
    if (!this.closing && !this.stopping) {
      const why = `the lease renewer thread ended unexpectedly (exit code ${code}${failure !== undefined ? `: ${failure}` : ''}); this agent stops acting`;
      this.options.log('error', why, { task: this.task.kind });
      this.fence.lose(why);
    }
    for (const [, waiting] of this.replies) waiting.reject(new LeaseRenewerError('the lease renewer thread has ended', { task: this.task.kind }));
    this.replies.clear();
    for (const listen of [...this.waiters]) listen('ended');
  }
}

function errorFrom(e: WireError): Error {
  return new LeaseRenewerError(e.message, { ...(e.code !== undefined ? { cause: e.code } : {}), ...(e.status !== undefined ? { status: e.status } : {}) });
}

export interface MemberLeaseThreadTask { namespace: string; shardSet: string; identity: string; configHash: string; configText: string }

/** A shard member's Lease renewed from a thread of its own; `fence` is the member's fence. */
export class ThreadedMemberLease implements MemberLeaseHandle {
  readonly memberId: string;
  readonly name: string;
  private readonly thread: RenewerThread;

  constructor(task: MemberLeaseThreadTask, options: LeaseThreadOptions) {
    this.memberId = memberIdOf(task.identity);
    this.name = memberLeaseName(task.shardSet, this.memberId);
    this.thread = new RenewerThread({ kind: 'member', ...task, leaseDurationMs: options.leaseDurationMs }, options);
  }

  get fence(): LeaseFence {
    return this.thread.fence;
  }

  /** The renewer thread, once started (diagnostics and tests). */
  get worker(): Worker | undefined {
    return this.thread.thread;
  }

  renew(view?: readonly string[]): Promise<void> {
    return this.thread.request({ type: 'renew', ...(view !== undefined ? { view: [...view] } : {}) });
  }

  /** Renews from the thread until the signal aborts or the Lease is lost (the thread then ends). */
  async keepRenewing(signal: AbortSignal): Promise<void> {
    if (await this.thread.until({ type: 'keep' }, 'ended', signal) === 'aborted') await this.thread.until({ type: 'halt' }, 'halted');
  }

  /** Deletes the Lease and ends the thread; never throws (the Lease expires on its own otherwise). */
  release(): Promise<void> {
    return this.thread.releaseAndClose();
  }

  close(): void {
    this.thread.close();
  }
}

export interface LeaderThreadTask { name: string; namespace: string; identity: string }

/** The leader Lease acquired, renewed and released from a thread of its own (runAsLeader's `elector`, with `fence`). */
export class ThreadedLeaderElector {
  private readonly thread: RenewerThread;

  constructor(task: LeaderThreadTask, options: LeaseThreadOptions) {
    this.thread = new RenewerThread({ kind: 'leader', ...task, leaseDurationMs: options.leaseDurationMs }, options);
  }

  get fence(): LeaseFence {
    return this.thread.fence;
  }

  /** The renewer thread, once started (diagnostics and tests). */
  get worker(): Worker | undefined {
    return this.thread.thread;
  }

  /** True once the Lease is held; false when the signal aborted first or the thread ended (then the thread is closed). */
  async acquire(signal?: AbortSignal): Promise<boolean> {
    const result = await this.thread.until({ type: 'acquire' }, 'acquired', signal);
    if (result === 'event') return true;
    if (result === 'aborted') await this.thread.until({ type: 'halt' }, 'halted');
    this.thread.close();
    return false;
  }

  async keepRenewing(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    const result = await this.thread.until({ type: 'keep' }, 'ended', signal);
    if (result !== 'aborted') return 'lost';
    await this.thread.until({ type: 'halt' }, 'halted');
    return this.fence.isLost ? 'lost' : 'stopped';
  }

  /** Gives the Lease up (empty holder) and ends the thread; never throws. */
  release(): Promise<void> {
    return this.thread.releaseAndClose();
  }

  close(): void {
    this.thread.close();
  }
}
