/**
 * Runs controllers like kube-controller-manager: one shared informer per kind, a work queue per
 * controller fed by its primary kind and the kinds it watches, workers that reconcile keys, and
 * retries with per-key backoff when a reconcile fails (a 409 Conflict retries almost at once).
 */
import type { KubeClient } from '../../../kube/client.js';
import { KubeApiError } from '../../../kube/errors.js';
import type { SimulationTiming } from '../types.js';
import { Api } from './api.js';
import type { Clock } from './clock.js';
import type { Controller, ControllerContext } from './controller.js';
import { EventRecorder } from './events.js';
import { Informer, objectKey } from './informer.js';
import { KINDS, type KindName } from './kinds.js';
import { WorkQueue } from './queue.js';

export interface RunnerOptions {
  client: KubeClient;
  clock: Clock;
  timing: SimulationTiming;
  nodes: number;
  controllers: Controller[];
  onError?: (controller: string, key: string, err: unknown) => void;
}

/** Delays within this are pending work for `settled` (the longest retry backoff is 5 s). */
export const SETTLE_HORIZON_MS = 5000;

export class ControllerRunner {
  private readonly informers = new Map<KindName, Informer>();
  private readonly queues = new Map<string, WorkQueue>();
  private readonly failures = new Map<string, number>();
  private readonly workers: Promise<void>[] = [];
  readonly context: ControllerContext;
  private stopped = false;

  constructor(private readonly options: RunnerOptions) {
    const { client, clock, timing, nodes } = options;
    const api = new Api(client, (kind) => this.informers.get(kind));
    this.context = {
      client,
      api,
      clock,
      timing,
      nodes,
      events: new EventRecorder(client, clock),
      informer: (kind) => this.informerFor(kind),
    };
    for (const controller of options.controllers) {
      const queue = new WorkQueue(clock);
      queue.whenDone(() => this.checkSettled());
      this.queues.set(controller.name, queue);
      this.informerFor(controller.kind);
      for (const watch of controller.watches ?? []) this.informerFor(watch.kind);
    }
  }

  private informerFor(kind: KindName): Informer {
    let informer = this.informers.get(kind);
    if (informer) return informer;
    informer = new Informer({
      client: this.options.client,
      ...KINDS[kind],
      clock: this.options.clock,
      onEvent: (type, obj, old) => {
        if (type === 'DELETED') this.context.events.forget(obj.metadata.uid);
        for (const controller of this.options.controllers) {
          const queue = this.queues.get(controller.name);
          if (!queue) continue;
          if (controller.kind === kind) {
            if (type === 'DELETED') controller.forget?.(obj);
            queue.add(objectKey(obj));
          }
          for (const watch of controller.watches ?? []) {
            if (watch.kind !== kind) continue;
            for (const key of watch.keys(obj, this.context)) queue.add(key);
            // A changed label can move an object from one owner to another: tell the old one too.
            if (old) for (const key of watch.keys(old, this.context)) queue.add(key);
          }
        }
      },
    });
    this.informers.set(kind, informer);
    return informer;
  }

  /** Starts the informers, waits for their first lists, then starts the workers. */
  async start(): Promise<void> {
    for (const informer of this.informers.values()) informer.start();
    await Promise.all([...this.informers.values()].map((i) => i.synced));
    if (this.stopped) return;
    for (const controller of this.options.controllers) {
      for (let i = 0; i < (controller.workers ?? 1); i++) this.workers.push(this.work(controller));
    }
  }

  private readonly contexts = new Map<string, ControllerContext>();

  /** The shared context, with an Api that records writes under the controller's component name. */
  private contextFor(controller: Controller): ControllerContext {
    if (!controller.fieldManager) return this.context;
    let ctx = this.contexts.get(controller.name);
    if (!ctx) this.contexts.set(controller.name, (ctx = { ...this.context, api: this.context.api.as(controller.fieldManager) }));
    return ctx;
  }

  private async work(controller: Controller): Promise<void> {
    const queue = this.queues.get(controller.name);
    if (!queue) return;
    for (;;) {
      const key = await queue.next();
      if (key === undefined) return;
      const failureKey = `${controller.name}\u0000${key}`;
      try {
        const result = await controller.reconcile(key, this.contextFor(controller));
        this.failures.delete(failureKey);
        if (result?.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs);
      } catch (err) {
        if (this.stopped) return;
        const n = (this.failures.get(failureKey) ?? 0) + 1;
        this.failures.set(failureKey, n);
        const conflict = err instanceof KubeApiError && (err.status === 409 || err.status === 404);
        queue.addAfter(key, conflict ? 5 : Math.min(20 * 2 ** n, 5000));
        if (!conflict) this.options.onError?.(controller.name, key, err);
      } finally {
        queue.done(key);
      }
    }
  }

  private settleWaiters: { horizonMs: number; resolve: () => void }[] = [];
  private settleCheckPending = false;

  /**
   * Resolves once every controller's queue is idle: no key queued or being reconciled, and none due
   * after a delay within `horizonMs` (a pod's start, a retry's backoff: at most 5 s). A later delay (a
   * Deployment's progress deadline, an HPA's sync period, a CronJob's next slot) is the future, not
   * pending work. Idle must still hold one macrotask later, so that the watch events of a reconcile's
   * last writes already on their way (microtasks with an in-process client) land first; over HTTP an
   * event still in the socket is not seen.
   */
  settled(horizonMs = SETTLE_HORIZON_MS): Promise<void> {
    return new Promise((resolve) => {
      this.settleWaiters.push({ horizonMs, resolve });
      this.checkSettled();
    });
  }

  private idleWithin(horizonMs: number): boolean {
    return this.stopped || [...this.queues.values()].every((q) => q.idleWithin(horizonMs));
  }

  /** Runs after every reconcile (and on close): resolves the waiters whose horizon is idle. */
  private checkSettled(): void {
    if (this.settleCheckPending || !this.settleWaiters.some((w) => this.idleWithin(w.horizonMs))) return;
    this.settleCheckPending = true;
    setImmediate(() => {
      this.settleCheckPending = false;
      // Those still busy are checked again when the work that keeps them busy is done.
      const ready = this.settleWaiters.filter((w) => this.idleWithin(w.horizonMs));
      this.settleWaiters = this.settleWaiters.filter((w) => !ready.includes(w));
      for (const w of ready) w.resolve();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const queue of this.queues.values()) queue.close();
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    await Promise.allSettled(this.workers);
    await this.context.events.flush();
  }
}
