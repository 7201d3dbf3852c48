/**
 * The agent's drift pass: which instances are checked now (their interval passed, or all of them on
 * demand: `--once`, a webhook, `baton plan check`), one sweep for them (src/drift/), a status commit
 * for each whose drift or health changed, and what the self-heal policy asks for: a repair of the
 * drifted objects as the instance's worker (a newer desired state supersedes it), or, when the
 * checkpoint itself is gone (its namespace deleted), a plan run that deploys the instance again.
 */
import { errorMessage } from '../errors.js';
import type { KubeClient } from '../kube/client.js';
import { DriftKeeper, driftSettingsOf, type DriftSettings, type InstanceDrift, type KeeperInstance } from '../drift/index.js';
import { loadInstanceSource } from '../plans/instance-source.js';
import { forgetNamespace } from '../plans/namespace.js';
import type { SyncSettingsDecl } from '../render/index.js';
import type { CommitTree } from '../git/tree.js';
import type { Checkpoint } from '../plans/checkpoint.js';
import type { AgentLog, InstanceReport } from './agent.js';
import { driftReporter, liveEvents, OneCommitEach, recordDriftCheck, recordRepairTransitions, repairListener, type LiveSections } from './drift-report.js';
import type { InstanceRunDeps, RunOutcome } from './instance-run.js';
import { keyString, sameFingerprint, type DesiredInstance } from './scan.js';
import type { InstanceKey, InstanceStatus } from './status-file.js';
import type { RecordBook } from './status-reporter.js';
import { driftSectionOf, healthAfterRepair, healthSectionOf, sameLive } from './status-sections.js';
import { unrecordedControl } from '../control/index.js';

/** What the drift loop needs from the agent. */
export interface DriftHost {
  deps(): InstanceRunDeps;
  status(id: string): InstanceStatus | undefined;
  setStatus(id: string, status: InstanceStatus): void;
  busy(id: string): boolean;
  /**
   * Whether the agent may write the instance's status now: it may act on it and decides with its own
   * record (a shard member that let go of it, or has not read it back from the branch, may not).
   */
  mayRecord(id: string): boolean;
  /** Runs `work` as the instance's worker: one at a time per instance, superseded by a newer desired state. */
  asWorker(key: InstanceKey, reason: string, desired: DesiredInstance, work: (signal: AbortSignal) => Promise<{ outcome: RunOutcome; status?: InstanceStatus }>): Promise<InstanceReport>;
  /** A plan run for the instance at this commit, as for a change (the engine selects deploy when the checkpoint is gone). */
  replan(desired: DesiredInstance, reason: string): Promise<InstanceReport>;
  /** Aborted when the agent stops: a sweep under way ends after its slice and records nothing more. */
  stopped: AbortSignal;
  log: AgentLog;
}

export interface DriftPassInput {
  commit: string;
  tree: CommitTree;
  desired: ReadonlyMap<string, DesiredInstance>;
  /** Check every instance now, whatever its interval says. */
  all: boolean;
  /** baton.yaml's `sync:` at the commit. */
  repositorySync: SyncSettingsDecl | undefined;
}

const contentIdOf = (d: DesiredInstance): string => `${d.fingerprint.instance}:${d.fingerprint.framework ?? ''}:${d.fingerprint.values ?? ''}`;

export class DriftLoop {
  private forced = false;
  private running = false;
  private readonly sensitive = new Map<string, readonly string[]>();
  /** The instances last looked at, for `nextDueAt`. */
  private known: KeeperInstance[] = [];

  constructor(private readonly host: DriftHost, readonly keeper: DriftKeeper, private readonly now: () => Date) {}

  /** The next pass checks every instance (a webhook, a request). */
  requestCheck(): void {
    this.forced = true;
  }

  /** Whether a pass would check something now (the agent polls for it even when Git did not move). */
  due(): boolean {
    return this.forced || this.keeper.due(this.known).length > 0;
  }

  nextDueAt(): number | undefined {
    return this.forced ? this.now().getTime() : this.keeper.nextDueAt(this.known);
  }

  async pass(input: DriftPassInput): Promise<InstanceReport[]> {
    // The poll loop does not wait for drift passes: one at a time, a later one starts after it.
    if (this.running) {
      if (input.all) this.forced = true;
      return [];
    }
    this.running = true;
    try {
      return await this.passNow(input);
    } finally {
      this.running = false;
    }
  }

  private async passNow(input: DriftPassInput): Promise<InstanceReport[]> {
    const all = input.all || this.forced;
    this.forced = false;
    const repoSync = input.repositorySync;
    const candidates: { instance: KeeperInstance; desired: DesiredInstance; status: InstanceStatus }[] = [];
    for (const [id, d] of input.desired) {
      const status = this.host.status(id);
      // Only instances the agent has acted on at this desired state, and that are not being worked on.
      // A suspended instance is neither checked nor repaired (docs/operations.md).
      if (status === undefined || status.state === 'REFUSED' || status.state === 'REMOVED' || status.state === 'SUSPENDED' || d.suspend === true || this.host.busy(id)) continue;
      if (!sameFingerprint(status.observed, d.fingerprint) || (status.currentPlan === undefined && status.sync?.lastApplied === undefined)) continue;
      candidates.push({ desired: d, status, instance: this.keeperInstance(d, input.tree, driftSettingsOf(repoSync, d.sync)) });
    }
    this.known = candidates.map((c) => c.instance);
    const due = this.keeper.due(this.known, all);
    if (due.length === 0) return [];
    const byKey = new Map(candidates.map((c) => [keyString(c.instance.key), c]));
    const jobs: Promise<InstanceReport>[] = [];
    // Each slice is recorded as soon as it is swept, with the checkpoints its sweep listed (no GET per
    // instance again: issue #20, 1.5-1.8 checkpoint reads per instance with more than one slice due).
    await this.keeper.check(due, this.host.stopped, async (slice) => {
      // The agent stopped meanwhile: what the sweep found is recorded by the next look (this agent's
      // next start, or the instances' next owner). Status committed now would come after the stop's
      // last push: a shard member's next process drops such commits, a lone agent pushes them late.
      if (this.host.stopped.aborted) return;
      // Plan transitions still queued commit first: a drift commit of the same instance must not replace them.
      await this.host.deps().writer.flushIfPending().catch(() => undefined);
      for (const result of slice.instances) {
        if (this.host.stopped.aborted) break;
        const c = byKey.get(keyString(result.instance));
        if (c === undefined) continue;
        const next = await this.act(c, result, slice.checkpoints?.get(keyString(result.instance))).catch((err: unknown) => {
          this.host.log('warn', `${keyString(result.instance)}: drift: ${errorMessage(err)}`, { instance: keyString(result.instance) });
          return undefined;
        });
        if (next) jobs.push(next.job);
      }
    });
    return Promise.all(jobs);
  }

  /** Records what changed, then asks for a repair or a new plan run when the policy says so. */
  private async act(c: { instance: KeeperInstance; desired: DesiredInstance; status: InstanceStatus }, result: InstanceDrift, swept: Checkpoint | undefined): Promise<{ job: Promise<InstanceReport> } | undefined> {
    const id = keyString(result.instance);
    // A plan started meanwhile: its transitions are the record now; the next check looks again.
    if (this.host.busy(id)) return undefined;
    const policy = c.instance.settings.policy;
    const sections: LiveSections = { health: healthSectionOf(result), drift: driftSectionOf(result, policy) };
    const deps = this.host.deps();
    // The checkpoint as the sweep listed it, unless the instance's record moved since it was chosen (a
    // plan ran meanwhile): then read again. A write by a command run directly against the cluster since
    // the list is recorded by the next check (issue #20: one GET per instance and check saved).
    const fresh = swept !== undefined && this.host.status(id) === c.status;
    const checkpoint = result.checkpointMissing ? undefined : fresh ? swept : (await deps.checkpoints.load(c.instance.key))?.checkpoint;
    // The sweep is not the instance's worker: while it ran, a shard member may have let go of the
    // instance (its record went with it). Written against no record, the checkpoint's run would be
    // recorded again (issue: duplicated runs while members join). Nor may the record have changed since
    // the sweep began: a plan ran meanwhile, or the member let go of the instance and got it back after
    // another member applied a newer desired state (the sweep looked at the old one). Asked again after
    // every wait below, with the record as this check last wrote it.
    let mine = c.status;
    const stillMine = (): boolean => this.host.mayRecord(id) && !this.host.busy(id) && this.host.status(id) === mine;
    if (!stillMine()) return undefined;
    const sensitive = this.sensitive.get(id) ?? [];
    const records: RecordBook = { get: (key) => deps.records.get(key), set: (key, status) => { deps.records.set(key, status); if (status) mine = status; } };
    const reporter = driftReporter({ writer: deps.writer, now: deps.now, records }, c.status, checkpoint, () => sections, sensitive);
    // One commit per transition of this instance: flush between two of them (see OneCommitEach).
    const between = async (): Promise<void> => {
      await deps.writer.flushIfPending().catch(() => undefined);
      if (!stillMine()) throw new LetGoMeanwhile(id);
    };
    try {
      const recovered = await recordRepairTransitions(reporter, c.status, checkpoint, between);
      if (!stillMine()) return undefined;
      // What a command run directly against the cluster did meanwhile (`baton plan pause --kubeconfig`...):
      // the checkpoint has it and the record not; recorded now, once (docs/operations.md).
      if (checkpoint !== undefined) {
        const operators = unrecordedControl(c.status, checkpoint).length;
        if (reporter.recordTransitions().length + operators > 0) await between();
      }
      if (recovered > 0 && !sameLive(c.status, sections)) await between();
    } catch (err) {
      // What was written before is pushed when the member lets go; its next owner derives the rest.
      if (err instanceof LetGoMeanwhile) return undefined;
      throw err;
    }
    if (!sameLive(c.status, sections)) {
      recordDriftCheck(reporter, sections);
      for (const e of liveEvents(c.status, sections)) deps.kubeEvents?.recordInstance(c.instance.key, e.type, e.reason, e.message, sensitive);
    }
    if (reporter.last) this.host.setStatus(id, reporter.last);
    if (policy !== 'repair' || this.host.busy(id)) return undefined;
    if (result.checkpointMissing) {
      // Its namespace may be gone with it: the run must not take it as known (src/plans/namespace.ts).
      forgetNamespace(deps.clientFor?.(c.instance.key) ?? deps.client, c.instance.key.namespace);
      return { job: this.host.replan(c.desired, 'repair: the checkpoint is gone (was the namespace deleted?)') };
    }
    if (!result.objects.some((o) => o.action === 'repair')) return undefined;
    return { job: this.repairJob(c, result, sections, checkpoint, sensitive) };
  }

  /** The repair as the instance's worker, its transitions written as they happen. */
  private repairJob(c: { instance: KeeperInstance; desired: DesiredInstance; status: InstanceStatus }, result: InstanceDrift, sections: LiveSections, checkpoint: Checkpoint | undefined, sensitive: readonly string[]): Promise<InstanceReport> {
    const id = keyString(result.instance);
    const deps = this.host.deps();
    return this.host.asWorker(c.instance.key, `repair drift: ${result.objects.length} object${result.objects.length === 1 ? '' : 's'}`, c.desired, async (signal) => {
      const latest = this.host.status(id) ?? c.status;
      const repairReporter = driftReporter({ writer: deps.writer, now: deps.now, records: deps.records }, latest, checkpoint, () => this.sectionsAfterRepair(sections, c.instance, repairReporter.checkpoint), sensitive);
      const commits = new OneCommitEach(deps.writer);
      const listeners = [repairListener(repairReporter, commits), ...(deps.onEngineEvent ? [deps.onEngineEvent] : []), ...(deps.kubeEvents ? [deps.kubeEvents.listener(() => sensitive)] : [])];
      const onEvent = (e: Parameters<(typeof listeners)[number]>[0]): void => { for (const l of listeners) l(e); };
      // Decided for the applied state the check read: a plan that ran first (this worker waited for it)
      // makes the repair stale, and it does nothing (src/drift/repair.ts).
      const decidedFor = checkpoint?.applied;
      const repaired = await this.keeper.repair(c.instance, result, { signal, onEvent, ...(decidedFor ? { decidedFor } : {}) });
      await commits.settled();
      const status = repairReporter.last;
      const outcome: RunOutcome = repaired.kind === 'complete' ? { kind: 'complete', plan: 'repair' }
        : repaired.kind === 'failed' ? { kind: 'failed', plan: 'repair', message: repaired.error.message }
        : repaired.kind === 'superseded' ? { kind: 'superseded', plan: 'repair' }
        : { kind: 'nothing', message: `repair skipped: ${repaired.reason}` };
      return { outcome, ...(status ? { status } : {}) };
    });
  }

  /** After a repair the drift section lists what is still drifted (the next sweep confirms it). */
  private sectionsAfterRepair(before: LiveSections, i: KeeperInstance, cp: Checkpoint | undefined): LiveSections {
    const sections = this.sectionsAfterSweep(before, i);
    // Written as the repair ends, perhaps before the keeper has its result: the checkpoint says what was re-applied.
    const repair = cp?.repair;
    if (sections.health === undefined || repair?.last?.state.status !== 'COMPLETE' || repair.objects === undefined) return sections;
    return { ...sections, health: healthAfterRepair(sections.health, repair.objects) };
  }

  private sectionsAfterSweep(before: LiveSections, i: KeeperInstance): LiveSections {
    const result = this.keeper.result(i.key);
    return result ? { health: before.health ?? healthSectionOf(result), drift: driftSectionOf(result, i.settings.policy) } : before;
  }

  private keeperInstance(d: DesiredInstance, tree: CommitTree, settings: DriftSettings): KeeperInstance {
    const deps = this.host.deps();
    const id = keyString(d.key);
    return {
      key: d.key,
      contentId: contentIdOf(d),
      settings,
      // Repairs write with the instance's own client (a tenant's impersonated ServiceAccount).
      ...(deps.clientFor ? { client: deps.clientFor(d.key) } : {}),
      // Sweeps read the instance's target cluster (src/clusters/).
      ...readerOf(deps, d.key),
      load: async () => {
        const values = deps.valuesFor?.(d.key);
        const source = await loadInstanceSource(tree, d.file, deps.renderer, {}, { ...(values ? { values } : {}), frameworks: deps.frameworks });
        this.sensitive.set(id, source.sensitiveValues);
        return source;
      },
    };
  }
}

/**
 * A drift check's instance is no longer the check's to write: a shard member let go of it while the
 * check waited, or its record changed meanwhile (a worker started or wrote, the instance came back).
 */
class LetGoMeanwhile extends Error {
  constructor(readonly instance: string) {
    super(`${instance}: let go of while its drift check was recorded`);
  }
}

/** The client a sweep reads the instance's cluster with, when it is not the agent's own (src/clusters/). */
function readerOf(deps: InstanceRunDeps, key: InstanceKey): { reader?: KubeClient } {
  const reader = deps.readerFor?.(key);
  return reader ? { reader } : {};
}
