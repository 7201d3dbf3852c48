/**
 * What the agent runs to hold the cluster to Git: which instances are due for a drift check (each
 * on its own interval, or all at once on demand), their renders cached by content id (an unchanged
 * instance and framework is never rendered twice), one sweep for all that are due, the last result
 * per instance, and repairs with the cached renders. One sweep at a time.
 */
import type { KubeClient } from '../kube/client.js';
import type { AppliedRecord, CheckpointStore, InstanceKey } from '../plans/checkpoint.js';
import { systemClock } from '../plans/clock.js';
import type { EventListener } from '../plans/events.js';
import type { EngineHooks } from '../plans/hooks.js';
import { desiredSetOf, type DesiredSource } from './desired.js';
import { DEFAULT_FIGHT, type FightSettings } from './fight.js';
import { repair, type RepairResult } from './repair.js';
import type { DriftSettings } from './settings.js';
import { sweep, type DesiredSet } from './sweep.js';
import type { InstanceDrift, SweepReport, SweepStats } from './types.js';

export interface KeeperInstance {
  key: InstanceKey;
  /** Content id of the desired state (instance file, framework version, ...): the render cache key. */
  contentId: string;
  settings: DriftSettings;
  /** The client repairs write with (a tenant's impersonated account); the keeper's own when absent. Sweeps read with the keeper's. */
  client?: KubeClient;
  /** The client sweeps read this instance's cluster with (another cluster than the agent's: src/clusters/); the keeper's own when absent. */
  reader?: KubeClient;
  /** Loads the desired state and its renderer; called only when the cache misses. */
  load(): Promise<DesiredSource>;
}

export interface DriftKeeperOptions {
  client: KubeClient;
  hooks: EngineHooks;
  store: CheckpointStore;
  now?: () => Date;
  fight?: FightSettings;
  /** Every finished sweep, with its duration (metrics). */
  onSweep?: (report: SweepReport, seconds: number) => void;
  /** Instances one sweep looks at, at most (DRIFT_SWEEP_SLICE): more are swept in slices, one after another. */
  sliceSize?: number;
}

/**
 * Instances swept together at most. A sweep holds the checkpoints, renders and live objects of the
 * instances it looks at until it is done, so its memory follows how many are due at once: right after
 * a shard member takes over thousands of instances (none checked by it yet) or on a forced check,
 * that was all of them (issue #20: the member holding 10,000 reached 474 MiB). Slices of 500 bound it;
 * each slice lists the kinds again, a few more requests for a large check.
 */
export const DRIFT_SWEEP_SLICE = 500;

const keyOf = (k: InstanceKey): string => `${k.namespace}/${k.name}`;

export class DriftKeeper {
  private readonly lastCheck = new Map<string, number>();
  private readonly results = new Map<string, InstanceDrift>();
  private readonly renders = new Map<string, { contentId: string; set: Promise<DesiredSet> }>();
  private running: Promise<SweepReport> | undefined;

  constructor(private readonly options: DriftKeeperOptions) {}

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** The instances whose interval has passed since their last check (all of them when `force`). */
  due(instances: readonly KeeperInstance[], force = false): KeeperInstance[] {
    const now = this.now().getTime();
    return instances.filter((i) => force || (this.lastCheck.get(keyOf(i.key)) ?? -Infinity) + i.settings.intervalMs <= now);
  }

  /** When the next of these instances is due (ms since epoch). */
  nextDueAt(instances: readonly KeeperInstance[]): number | undefined {
    let min: number | undefined;
    for (const i of instances) {
      const at = (this.lastCheck.get(keyOf(i.key)) ?? 0) + i.settings.intervalMs;
      min = Math.min(min ?? Infinity, at);
    }
    return min;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * Sweeps the given instances (one sweep at a time: a second call waits for the first and sweeps after
   * it). `signal` (the agent stopping) ends it: no further render, list or slice starts. `onSlice` gets
   * each slice's report, with the checkpoints it listed, as soon as the slice is swept and its results
   * are kept, before the next slice starts: whoever records the results has the checkpoints at hand
   * without holding every slice's at once (the report returned leaves them out past one slice).
   */
  async check(instances: readonly KeeperInstance[], signal?: AbortSignal, onSlice?: (slice: SweepReport) => Promise<void>): Promise<SweepReport> {
    while (this.running) await this.running.catch(() => undefined);
    const started = this.now().getTime();
    let handling = 0;
    const sliceDone = async (slice: SweepReport): Promise<void> => {
      // Kept before `onSlice` acts on them: a repair it starts updates them, and must not be overwritten.
      for (const d of slice.instances) this.results.set(keyOf(d.instance), d);
      if (onSlice === undefined) return;
      const at = this.now().getTime();
      try {
        await onSlice(slice);
      } finally {
        handling += this.now().getTime() - at;
      }
    };
    const run = this.sweepInSlices(instances, signal, sliceDone);
    this.running = run;
    // Checked (or tried to) now: a sweep that fails is tried again after the interval, not in a loop.
    for (const i of instances) this.lastCheck.set(keyOf(i.key), started);
    try {
      const report = await run;
      // The sweep's own time: what `onSlice` spent recording is not the sweep's.
      this.options.onSweep?.(report, (this.now().getTime() - started - handling) / 1000);
      return report;
    } finally {
      this.running = undefined;
    }
  }

  /** Sweeps of at most `sliceSize` instances, one after another, merged into one report. */
  private async sweepInSlices(instances: readonly KeeperInstance[], signal: AbortSignal | undefined, sliceDone: (slice: SweepReport) => Promise<void>): Promise<SweepReport> {
    const size = Math.max(1, this.options.sliceSize ?? DRIFT_SWEEP_SLICE);
    if (instances.length <= size) {
      const report = await this.sweepByCluster(instances, signal);
      await sliceDone(report);
      return report;
    }
    const reports: SweepReport[] = [];
    for (let i = 0; i < instances.length && signal?.aborted !== true; i += size) {
      const slice = await this.sweepByCluster(instances.slice(i, i + size), signal);
      await sliceDone(slice);
      // Its checkpoints are let go of here, not held until every slice is done.
      const { checkpoints: _handled, ...kept } = slice;
      reports.push(kept);
    }
    // Not every slice's checkpoints at once (see SweepReport.checkpoints).
    return mergeReports(reports, this.now(), false);
  }

  /** One sweep per cluster the instances live in (lists are per cluster), merged into one report. */
  private async sweepByCluster(instances: readonly KeeperInstance[], signal: AbortSignal | undefined): Promise<SweepReport> {
    const groups = new Map<KubeClient, KeeperInstance[]>();
    for (const i of instances) {
      const client = i.reader ?? this.options.client;
      groups.set(client, [...(groups.get(client) ?? []), i]);
    }
    const reports = await Promise.all([...groups].map(([client, group]) => sweep({
      client,
      hooks: this.options.hooks,
      now: () => this.now(),
      ...(signal ? { signal } : {}),
      instances: group.map((i) => ({ key: i.key, policy: i.settings.policy, desired: () => this.desiredOf(i) })),
    })));
    return reports.length === 1 ? reports[0]! : mergeReports(reports, this.now(), true);
  }

  result(key: InstanceKey): InstanceDrift | undefined {
    return this.results.get(keyOf(key));
  }

  /** The cached desired objects of an instance (rendered again when its content id changed). */
  desiredOf(i: KeeperInstance): Promise<DesiredSet> {
    const hit = this.renders.get(keyOf(i.key));
    if (hit?.contentId === i.contentId) return hit.set;
    const set = i.load().then((source) => desiredSetOf(source));
    // A failed render is not cached: the next sweep tries again.
    set.catch(() => { if (this.renders.get(keyOf(i.key))?.set === set) this.renders.delete(keyOf(i.key)); });
    this.renders.set(keyOf(i.key), { contentId: i.contentId, set });
    return set;
  }

  /** Repairs what the last sweep found drifted for this instance (with the cached renders). */
  async repair(i: KeeperInstance, drift: InstanceDrift, extra: { signal?: AbortSignal; onEvent?: EventListener; decidedFor?: AppliedRecord } = {}): Promise<RepairResult> {
    const desired = await this.desiredOf(i);
    const result = await repair({
      client: i.client ?? this.options.client, hooks: this.options.hooks, store: this.options.store, instance: i.key, drifted: drift.objects, desired,
      frameworkVersion: desired.state.frameworkVersion, fight: this.options.fight ?? DEFAULT_FIGHT, clock: { ...systemClock, now: () => this.now().getTime() },
      ...(extra.signal ? { signal: extra.signal } : {}), ...(extra.onEvent ? { onEvent: extra.onEvent } : {}), ...(extra.decidedFor ? { decidedFor: extra.decidedFor } : {}),
    });
    // Overtaken by a plan (another member's, perhaps): checked again at once, with the newer desired state.
    if (result.kind === 'skipped' && result.outdated === true) this.forget(i.key);
    // Repaired objects are no longer drifted; the next sweep confirms it.
    if (result.kind === 'complete') this.results.set(keyOf(i.key), { ...drift, objects: drift.objects.filter((o) => !result.repaired.includes(o)) });
    return result;
  }

  /** Forgets an instance (removed from Git). */
  forget(key: InstanceKey): void {
    this.lastCheck.delete(keyOf(key));
    this.results.delete(keyOf(key));
    this.renders.delete(keyOf(key));
  }
}

function mergeReports(reports: readonly SweepReport[], now: Date, withCheckpoints: boolean): SweepReport {
  return {
    at: reports[0]?.at ?? now.toISOString(),
    instances: reports.flatMap((r) => r.instances),
    stats: reports.reduce((sum, r) => addStats(sum, r.stats), emptyStats()),
    ...(withCheckpoints ? { checkpoints: new Map(reports.flatMap((r) => [...(r.checkpoints ?? [])])) } : {}),
  };
}

function emptyStats(): SweepStats {
  return { requests: 0, lists: 0, dryRuns: 0, gets: 0, objects: 0, candidates: 0, listed: 0, kept: 0, sweeps: 0 };
}

function addStats(a: SweepStats, b: SweepStats): SweepStats {
  return { requests: a.requests + b.requests, lists: a.lists + b.lists, dryRuns: a.dryRuns + b.dryRuns, gets: a.gets + b.gets, objects: a.objects + b.objects, candidates: a.candidates + b.candidates, listed: a.listed + b.listed, kept: a.kept + b.kept, sweeps: a.sweeps + b.sweeps };
}
