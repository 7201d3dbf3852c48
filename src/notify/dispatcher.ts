/**
 * Delivers notification events to providers: one queue per provider (deliveries to one target keep
 * their order and never run in parallel), at most `perMinute` deliveries a minute, retries with
 * exponential backoff and jitter (or the wait the server asked for) for transient failures, and a
 * logged failure for the rest. Every event is masked with the run's sensitive values before any
 * provider sees it, and every logged message with the providers' credentials as well. Delivery never
 * holds up or fails a plan: `notify` returns at once; `drain` waits (bounded) at shutdown.
 */
import { errorMessage } from '../errors.js';
import { maskSensitive } from '../render/mask.js';
import { instanceLabel, type NotifyEvent } from './events.js';
import type { Delivery, Provider } from './providers/types.js';

export type NotifyLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseMs: 1000, maxMs: 60_000 };
/** Events waiting per provider; beyond it the oldest are dropped (and counted in a warning). */
export const QUEUE_LIMIT = 500;

export interface DispatcherOptions {
  log?: NotifyLog;
  retry?: RetryPolicy;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface Job {
  event: NotifyEvent;
  delivery: Delivery;
}

class ProviderQueue {
  private readonly jobs: Job[] = [];
  private running: Promise<void> | undefined;
  private readonly sent: number[] = [];
  dropped = 0;

  constructor(readonly provider: Provider, private readonly d: Dispatcher) {}

  push(job: Job): void {
    if (this.jobs.length >= QUEUE_LIMIT) {
      this.jobs.shift();
      this.dropped += 1;
      if (this.dropped === 1 || this.dropped % 100 === 0) this.d.log('warn', `notification ${this.provider.name}: queue full, ${this.dropped} oldest deliveries dropped`, { notification: this.provider.name });
    }
    this.jobs.push(job);
    this.running ??= this.run().finally(() => { this.running = undefined; });
  }

  get idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  get pending(): number {
    return this.jobs.length;
  }

  private async run(): Promise<void> {
    for (let job = this.jobs.shift(); job !== undefined; job = this.jobs.shift()) {
      await this.d.deliver(this.provider, job, () => this.waitForSlot());
    }
  }

  /** The rate limit: at most perMinute sends in any minute. */
  private async waitForSlot(): Promise<void> {
    const windowMs = 60_000;
    for (;;) {
      const now = this.d.now();
      while (this.sent.length > 0 && this.sent[0]! <= now - windowMs) this.sent.shift();
      if (this.sent.length < this.provider.perMinute) {
        this.sent.push(now);
        return;
      }
      await this.d.sleep(this.sent[0]! + windowMs - now);
    }
  }
}

export class Dispatcher {
  private readonly queues: ProviderQueue[];
  private readonly retry: RetryPolicy;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  private readonly logFn: NotifyLog;
  /** Counts for metrics and tests. */
  readonly stats = { delivered: 0, failed: 0, retried: 0 };

  constructor(providers: readonly Provider[], options: DispatcherOptions = {}) {
    this.queues = providers.map((p) => new ProviderQueue(p, this));
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()));
    this.logFn = options.log ?? (() => undefined);
  }

  get providers(): Provider[] {
    return this.queues.map((q) => q.provider);
  }

  /** Queues the event for every provider that wants it. `sensitiveValues` are masked out of it first. */
  notify(event: NotifyEvent, sensitiveValues: readonly string[] = []): void {
    const masked = maskSensitive(event, sensitiveValues);
    for (const q of this.queues) {
      const p = q.provider;
      if (!p.events.has(event.type)) continue;
      if (p.tenants !== undefined && (event.tenant === undefined || !p.tenants.has(event.tenant))) continue;
      let deliveries: Delivery[];
      try {
        deliveries = p.deliveries(masked);
      } catch (err) {
        this.log('error', `notification ${p.name}: ${errorMessage(err)}`, { notification: p.name });
        continue;
      }
      for (const delivery of deliveries) q.push({ event: masked, delivery });
    }
  }

  /** Waits until every queued delivery is done, at most `timeoutMs`; returns whether all were. */
  async drain(timeoutMs = 10_000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); timer.unref(); });
    const all = (async (): Promise<true> => {
      while (this.queues.some((q) => q.pending > 0)) await Promise.all(this.queues.map((q) => q.idle));
      await Promise.all(this.queues.map((q) => q.idle));
      return true;
    })();
    try {
      return await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  log(level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown> = {}): void {
    const secrets = this.queues.flatMap((q) => q.provider.secrets);
    this.logFn(level, maskSensitive(message, secrets), fields);
  }

  /** One delivery with its retries. */
  async deliver(provider: Provider, job: Job, slot: () => Promise<void>): Promise<void> {
    const what = `notification ${provider.name} (${provider.type} ${job.delivery.what}) of ${job.event.type} for ${instanceLabel(job.event)}`;
    const fields = { notification: provider.name, event: job.event.type, instance: instanceLabel(job.event) };
    for (let attempt = 1; ; attempt++) {
      await slot();
      let result;
      try {
        result = await job.delivery.send();
      } catch (err) {
        result = { ok: false as const, retry: true, message: errorMessage(err) };
      }
      if (result.ok) {
        this.stats.delivered += 1;
        if (attempt > 1) this.log('info', `${what}: delivered after ${attempt} attempts`, fields);
        return;
      }
      const message = maskSensitive(result.message, [...provider.secrets]);
      if (!result.retry || attempt >= this.retry.attempts) {
        this.stats.failed += 1;
        job.delivery.onFailure?.(result);
        this.log('error', `${what} failed${result.retry ? ` after ${attempt} attempts` : ''}: ${message}`, { ...fields, ...(result.status !== undefined ? { status: result.status } : {}) });
        return;
      }
      const backoff = Math.min(this.retry.maxMs, this.retry.baseMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      const wait = Math.max(result.retryAfterMs ?? 0, backoff);
      this.stats.retried += 1;
      this.log('warn', `${what}: ${message}; retrying in ${Math.round(wait / 100) / 10}s (attempt ${attempt} of ${this.retry.attempts})`, fields);
      await this.sleep(wait);
    }
  }
}
