/**
 * The GitOps agent: each pass fetches the branch, finds the instances whose desired state changed
 * (by content ids, see scan.ts) or whose plan is unfinished, and runs them through the plan engine,
 * one worker per instance and a bounded number at once. Status goes back to Git through the
 * StatusWriter. Newer desired state for a busy instance supersedes its running plan after the
 * running step (the engine's AbortSignal contract).
 */
import type { KubeClient } from '../kube/client.js';
import type { CheckpointStore } from '../plans/checkpoint.js';
import type { EventListener } from '../plans/events.js';
import type { EngineHooks } from '../plans/hooks.js';
import type { PlanEventSink } from '../plans/kube-events.js';
import { problemLocation, type Problem, type Renderer } from '../render/index.js';
import { errorMessage } from '../errors.js';
import { PUSH_PACK_CONFIG, trackingRef, type GitMirror } from '../git/mirror.js';
import { ObjectStore, type CommitTree } from '../git/tree.js';
import type { Identity } from '../git/write.js';
import { forgetRefusedInstance, reportCommitRefusal, runInstance, type InstanceRunDeps, type RunOutcome } from './instance-run.js';
import { keyString, sameFingerprint, scanDesired, changeReason, DesiredScan, type DesiredInstance, type ParseCache, type ScanScope } from './scan.js';
import type { InstanceKey, InstanceStatus, ScheduleStatus } from './status-file.js';
import { StatusMap } from './status-map.js';
import { readStatusFiles } from './status-load.js';
import type { InstanceOwnership, OwnershipSnapshot } from './ownership.js';
import type { ValuesContext } from '../secrets/instance-values.js';
import { clusterValuesVersion } from '../secrets/values-from.js';
import { valuesDigest } from './scan.js';
import { StatusWriter } from './status-writer.js';
import type { RecordBook } from './status-reporter.js';
import { SourceCommits } from './source-commit.js';
import { StepRetryLog } from './retry-log.js';
import type { Fence } from '../fencing/index.js';
import { Semaphore } from './semaphore.js';
import { afterRun, dueRun, scheduleStatus, type DueRun } from './schedules.js';
import type { DriftKeeper } from '../drift/index.js';
import { DriftLoop } from './drift-loop.js';
import { RecoveryLoop } from './recovery-loop.js';
import { FrameworkCache } from '../render/index.js';
import { contentKeyOf, repositorySyncAt, retryDue } from './retry-due.js';
import { decideBeside, onlyRequestChanged, RequestLane } from './request-lane.js';
import type { SyncSettingsDecl } from '../render/index.js';
import { assignTargets, type ClusterRouter } from '../clusters/index.js';
import { clusterErrorOf, submitUnreachable, unreachableStatus } from './cluster-status.js';
import { ChildRecords } from './child-records.js';

export interface AgentLog {
  (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void;
}

export interface AgentOptions {
  mirror: GitMirror;
  branch: string;
  /** Status commits go here instead of `branch` when set. */
  statusBranch?: string;
  client: KubeClient;
  checkpoints: CheckpointStore;
  hooks: EngineHooks;
  renderer: Renderer;
  author: Identity;
  /** Instances whose plans run at the same time (default 4). */
  concurrency?: number;
  coalesceMs?: number;
  log?: AgentLog;
  now?: () => Date;
  onPushRetry?: (attempt: number) => void;
  /** Signs status commits (see git/verify.ts sshSigner). */
  sign?: (payload: string) => Promise<string>;
  /** Every instance outcome (metrics). */
  onOutcome?: (outcome: RunOutcome) => void;
  /** Every engine progress event of every instance (metrics). */
  onEngineEvent?: EventListener;
  /**
   * The branch tip refused by signature verification, if it is refused now (see git/verify.ts
   * VerifyingMirror.lastRefusal): the mirror then hands the agent the last verified commit, and the
   * agent writes the refusal into the status of every instance the refused commit changes.
   */
  commitRefusal?: () => CommitRefusal | undefined;
  /** Records Kubernetes Events for plans (see plans/kube-events.ts); flushed on stop. */
  kubeEvents?: PlanEventSink;
  /** Drift detection and self-heal (src/drift/, docs/drift.md); off when absent. */
  drift?: DriftKeeper;
  /** How often pods are looked at for recovery, decommission and pod requests (docs/recovery.md; default 30s). */
  podCheckIntervalMs?: number;
  /** The leader's fence (see fencing/): status pushes check it and commits carry its lease term. */
  fence?: Fence;
  /** Every instance's outcome with the instance and the commit it was decided at (notifications). */
  onInstanceOutcome?: (report: InstanceOutcome) => void;
  /** The client an instance's objects are applied with (a tenant's impersonated account). */
  clientFor?: (key: InstanceKey) => KubeClient;
  /** Age keys and the cluster for an instance's encrypted values and valuesFrom. */
  valuesFor?: (key: InstanceKey) => ValuesContext;
  /** How long a stop keeps trying to push status rejected under contention (default 30 s). */
  shutdownPushMs?: number;
  /** The instances this agent may act on (a shard member's share, src/shards/); every instance when absent. */
  ownership?: InstanceOwnership;
  /**
   * Many clusters (src/clusters/, docs/clusters.md): each instance's target by baton.yaml `clusters` and
   * its `cluster:`. The agent tells it every instance's target at each commit; `client`, `clientFor`,
   * `checkpoints` and `kubeEvents` are expected to route through it.
   */
  clusters?: ClusterRouter;
}

/** One instance's outcome, for listeners such as notifications. */
export interface InstanceOutcome {
  instance: InstanceKey;
  /** The commit whose desired state the outcome is about. */
  commit: string | undefined;
  reason: string;
  outcome: RunOutcome;
  at: string;
}

export interface CommitRefusal {
  commit: string;
  reason: 'unsigned' | 'untrusted' | 'bad';
  message: string;
}

/** Pause before a scheduled run that broke off (cluster unreachable...) is tried again. */
const SCHEDULE_RETRY_MS = 30_000;
/**
 * The most transitions a shard member records in one status commit (docs/agent.md, "Commits: every transition once"):
 * enough that a member's backlog under push contention costs a few commits (a coalescing window of a
 * 2,500-instance share holds tens), few enough that a commit message stays ~30 KB.
 */
const SHARD_TRANSITIONS_PER_COMMIT = 64;

const REFUSAL_CODES: Record<CommitRefusal['reason'], string> = { unsigned: 'COMMIT_UNSIGNED', untrusted: 'COMMIT_UNTRUSTED', bad: 'COMMIT_BAD_SIGNATURE' };
const isSignatureRefusal = (status: InstanceStatus | undefined): boolean => Object.values(REFUSAL_CODES).includes(status?.refusal?.code ?? '');
/** A status written only to record a signature refusal: no plan ever ran, nothing is in the cluster. */
const neverApplied = (status: InstanceStatus): boolean => isSignatureRefusal(status) && status.currentPlan === undefined && status.inventory.length === 0;

export interface InstanceReport {
  instance: string;
  reason: string;
  outcome: RunOutcome;
}

export interface PassReport {
  commit: string | undefined;
  reports: InstanceReport[];
}

/** An instance whose run broke off (not a plan result): look at it again on the next poll. */
const retryable = (r: InstanceReport): boolean => r.outcome.kind === 'error';

/** A shard member's scan keeps the instances it may act on now; one agent alone keeps every instance. */
const scopeOf = (owned: OwnershipSnapshot | undefined): ScanScope | undefined => owned && { version: owned.version, keeps: (id) => owned.mayAct(id) };

const actsOn = (owned: OwnershipSnapshot | undefined, key: string): boolean => owned === undefined || owned.mayAct(key);

/** States after which a plan still has work to do (resume it even if nothing changed). */
const UNFINISHED = new Set(['PENDING', 'IN_PROGRESS', 'ERROR']);

export class Agent {
  readonly store: ObjectStore;
  readonly writer: StatusWriter;
  /** The last status written for each instance (committed or queued): the record transitions are derived against. */
  private readonly statuses = new StatusMap();
  private readonly records: RecordBook = {
    get: (key) => this.statuses.get(keyString(key)),
    set: (key, status) => { if (status) this.statuses.set(keyString(key), status); else this.statuses.delete(keyString(key)); },
  };
  private readonly sources: SourceCommits;
  private readonly stepRetries: StepRetryLog;
  private readonly parseCache: ParseCache = new Map();
  private readonly desiredScan = new DesiredScan(this.parseCache);
  /** Each instance's one worker; `sideRun`: a drift repair or pod work (not a plan), which a request commit never interrupts. */
  private readonly workers = new Map<string, { abort: AbortController; done: Promise<void>; fingerprint: DesiredInstance['fingerprint'] | undefined; lane?: RequestLane; sideRun?: boolean }>();
  private readonly semaphore: Semaphore;
  private statusesLoaded = false;
  private lastCommit: string | undefined;
  private readonly nextRuns = new Map<string, ScheduleStatus[]>();
  private readonly slotsStarted = new Set<string>();
  /** Instances whose scheduled run broke off: not before this time (ms) again. */
  private readonly scheduleRetryAt = new Map<string, number>();
  private readonly log: AgentLog;
  private layoutReportedFor: string | undefined;
  /** The refused commit whose refusals are written, and the instances it changes (they do not run). */
  private refused: { commit: string; keys: Set<string>; named: Map<string, DesiredInstance> } | undefined;
  /** Set by stop(): nothing new starts. */
  private stopping = false;
  /** Aborted by stop(): a drift sweep under way ends and records nothing more. */
  private readonly stopSignal = new AbortController();
  private readonly driftLoop: DriftLoop | undefined;
  private readonly recoveryLoop: RecoveryLoop;
  /**
   * The agent's one cache of framework versions, by tree id (issue #20): handed to everything that loads
   * one (instance runs and their renders, drift, dependencies, the pod pass, requests beside a plan), so
   * each version is parsed once per agent and the bound (FRAMEWORK_CACHE_ENTRIES) is this agent's alone.
   */
  private readonly frameworks = new FrameworkCache();
  /** Ids of the desired-state content of the last pass (status commits do not change it): a new one retries failed instances. */
  private lastContent: string | undefined;
  private lastScanned: string | undefined;
  /** The retry time of each failed instance last acted on. */
  private readonly retried = new Map<string, string>();
  /** baton.yaml's `sync:` (retry backoff, drift interval and policy) at the last scanned commit. */
  private repositorySync: { commit: string; sync: SyncSettingsDecl | undefined } | undefined;
  /** Failed instances a new commit asked to retry, not yet retried. */
  private readonly retryNowFor = new Set<string>();
  /** Suspended instances (`suspend: true`): their schedules hold, so they set no poll time. */
  private readonly suspended = new Set<string>();
  /** Whether some instance takes values from the cluster (then no poll may skip looking). */
  private clusterValues = false;
  /** The ownership version the last pass decided with (a new one: look at every instance again). */
  private ownershipVersion: number | undefined;
  /**
   * A shard member's instances whose record is its own: it has been allowed to act on them since it read
   * their status from the branch. Only these records are decided with; an instance that becomes the
   * member's to act on is read again from the branch (its previous owner pushed before letting go).
   */
  private readonly held = new Set<string>();
  /**
   * How many times this member has let go of instances. A pass that began before a release decided
   * with records the release threw away: it holds nothing, and its work starts only on instances still
   * held (the next pass reads the others again). Without this, a pass in flight while the member let go
   * marked the instances it had scanned as held; when one came back after another member ran a plan on
   * it, it was decided with no record and that member's transitions were recorded a second time.
   */
  private releases = 0;
  /** A shard member's records of children of Instance tasks: held with their parents (child-records.ts). */
  private readonly children = new ChildRecords();

  constructor(private readonly options: AgentOptions) {
    this.store = new ObjectStore(options.mirror.dir);
    this.writer = new StatusWriter({
      mirror: options.mirror, store: this.store, branch: options.statusBranch ?? options.branch, author: options.author,
      ...(options.coalesceMs !== undefined ? { coalesceMs: options.coalesceMs } : {}),
      ...(options.onPushRetry ? { onRetry: options.onPushRetry } : {}),
      ...(options.sign ? { sign: options.sign } : {}),
      ...(options.fence ? { fence: options.fence } : {}),
      // Shard members push to one branch: each yields to the others after its pushes (see StatusWriter),
      // and records what queued meanwhile in few commits (a trailer block per transition), so a push
      // carries a few commits and trees rather than a commit and ~5 objects per transition.
      ...(options.ownership ? { pushers: () => options.ownership?.pushers?.() ?? 1, maxTransitionsPerCommit: SHARD_TRANSITIONS_PER_COMMIT } : {}),
      // ...and take turns, so that none of them starves (push-turn/).
      ...(options.ownership?.pushTurn ? { turn: options.ownership.pushTurn, onTurnError: (err: unknown) => this.log('warn', `status push: the push turn could not be taken (pushing without it): ${errorMessage(err)}`) } : {}),
      pushConfig: PUSH_PACK_CONFIG,
      onGiveUp: (err, retryInMs) => this.log('warn', `status push: ${errorMessage(err)}; trying again in ${retryInMs} ms`),
      // A newer leader wrote status meanwhile: what this agent queued is not the record; read it again.
      onDropped: (count) => {
        this.log('warn', `dropped ${count} unpushed status commits: an agent with a newer lease term wrote status meanwhile`);
        this.statuses.clear();
        this.held.clear();
        this.children.clear();
        this.statusesLoaded = false;
        this.lastCommit = undefined;
      },
    });
    this.sources = new SourceCommits(this.store);
    this.semaphore = new Semaphore(options.concurrency ?? 4);
    this.log = options.log ?? (() => undefined);
    this.stepRetries = new StepRetryLog(this.log);
    this.driftLoop = options.drift ? new DriftLoop({
      deps: () => this.runDeps(),
      status: (id) => this.statuses.get(id),
      setStatus: (id, status) => this.statuses.set(id, status),
      busy: (id) => this.workers.has(id),
      mayRecord: (id) => this.mayAct(id) && this.holdsRecord(id),
      asWorker: (key, reason, desired, work) => this.work(key, reason, desired.fingerprint, false, this.lastScanned, work, undefined, true),
      replan: (desired, reason) => this.replan(desired, reason),
      stopped: this.stopSignal.signal,
      log: this.log,
    }, options.drift, () => this.now()) : undefined;
    this.recoveryLoop = new RecoveryLoop({
      deps: () => this.runDeps(),
      status: (id) => this.statuses.get(id),
      setStatus: (id, status) => this.statuses.set(id, status),
      busy: (id) => this.workers.has(id),
      asWorker: (key, reason, desired, work) => this.work(key, reason, desired.fingerprint, false, this.lastScanned, work, undefined, true),
      runPlan: (desired, request, reason, after) => this.runRequested(desired, request, reason, after),
      log: this.log,
      now: () => this.now(),
    }, options.podCheckIntervalMs);
  }

  /** The agent's framework cache (tests read its counts; nothing outside the agent loads through it). */
  get frameworkCache(): FrameworkCache {
    return this.frameworks;
  }

  /** The next pass checks every instance for drift (a webhook, `baton plan check`). */
  checkDrift(): void {
    this.driftLoop?.requestCheck();
  }

  /** The status of every instance as last written (metrics mirror it). */
  instanceStatuses(): InstanceStatus[] {
    return [...this.statuses.values()];
  }

  /** Prepares the bare clone and pushes status commits a previous agent left unpushed. */
  async start(): Promise<void> {
    await this.options.mirror.init();
    if (this.options.statusBranch !== undefined) await this.options.mirror.fetch(this.options.statusBranch);
    else await this.options.mirror.fetch(this.options.branch);
    await this.writer.flush();
  }

  /**
   * One pass. Starts a worker for every instance that needs one and resolves when all the work it
   * started is done (so `--once` and tests can wait); the loop does not wait between passes.
   */
  async pass(options: { wait?: boolean; drift?: 'due' | 'all' } = {}): Promise<PassReport> {
    const { mirror, branch } = this.options;
    const releases = this.releases;
    const owned = this.noteOwnership();
    const version = owned?.snapshot.version;
    const commit = await mirror.fetch(branch);
    const refusalReports = await this.noteCommitRefusal(commit, releases);
    if (commit === undefined) {
      if (refusalReports.length === 0) this.log('warn', `branch ${branch} does not exist in the repository yet`);
      await this.writer.flush();
      return { commit, reports: refusalReports };
    }
    // Nothing new: same commit, no plan running, no schedule, retry or drift check due. The cheap common case of a poll.
    // Instances with valuesFrom are looked at on every poll: their Secrets change outside Git.
    if (!this.clusterValues && this.idleAt(commit, options.drift === 'all')) {
      await this.writer.flushIfPending();
      return { commit, reports: refusalReports };
    }
    const tree = await this.store.at(commit);
    // What runs is the desired state of the user's commit behind the tip (perhaps a status commit).
    const source = await this.sources.userCommitOf(commit);
    this.lastScanned = source;
    await this.loadOwnedStatuses(owned, releases);
    // A shard member scans (parses, keeps) only the instances it may act on; the others are only named.
    const desired = await this.desiredScan.at(tree, (problems) => this.reportLayout(commit, problems), scopeOf(owned?.snapshot));
    const scanned = this.desiredScan.names;
    this.hold(desired.keys(), releases);
    await this.noteContent(commit, tree);
    await this.noteTargets(tree, desired, scanned);
    this.clusterValues = [...desired.values()].some((d) => d.valuesFrom.length > 0);
    if (this.clusterValues) await this.addClusterValues(desired);
    const jobs: Promise<InstanceReport>[] = [];
    const now = this.now();
    for (const [key, d] of desired) {
      const job = this.jobFor(key, d, source, tree, now);
      if (job) jobs.push(job);
    }
    for (const [key, previous] of this.statuses) {
      if (this.refused?.keys.has(key) === true || scanned.has(key) || !actsOn(owned?.snapshot, key)) continue;
      // A child of an Instance task has no file of its own: its parent's plans create and remove it.
      if (previous.parent !== undefined) continue;
      // Only a refused commit ever named it, and that is gone: nothing was applied, drop its status.
      if (neverApplied(previous)) {
        jobs.push(...this.forget(previous, releases));
        continue;
      }
      if (!desired.has(key) && !(this.workers.has(key) && this.workers.get(key)?.fingerprint === undefined)) jobs.push(this.schedule(previous.instance, source, tree, undefined, 'instance file removed'));
    }
    // Drift is checked after the plans this pass started (a busy instance is not checked).
    const driftAfter = async (): Promise<InstanceReport[]> => {
      if (this.driftLoop === undefined || this.stopping) return [];
      try {
        return await this.driftLoop.pass({ commit, tree, desired, all: options.drift === 'all', repositorySync: this.repositorySync?.sync });
      } catch (err) {
        this.log('warn', `drift check failed: ${errorMessage(err)}`);
        return [];
      }
    };
    // Pods (recovery, decommission, pod requests) after drift: an instance being repaired is busy.
    const podsAfter = async (): Promise<InstanceReport[]> => {
      if (this.stopping) return [];
      try {
        return await this.recoveryLoop.pass({ commit: source, tree, desired });
      } catch (err) {
        this.log('warn', `pod check failed: ${errorMessage(err)}`);
        return [];
      }
    };
    this.recoveryLoop.queued();
    if (options.wait === false) {
      this.ownershipVersion = version;
      void Promise.all(jobs).then(async (reports) => {
        if (this.settled(reports, desired) && this.options.ownership?.version === version) this.lastCommit = commit;
        await driftAfter();
        await podsAfter();
      });
      return { commit, reports: refusalReports };
    }
    const reports = await Promise.all(jobs);
    const repairs = await driftAfter();
    const podWork = await podsAfter();
    await this.writer.flush();
    if (this.settled(reports, desired)) this.lastCommit = commit;
    this.ownershipVersion = version;
    return { commit, reports: [...refusalReports, ...reports, ...repairs, ...podWork] };
  }

  /**
   * baton.yaml's `sync:` at this commit, and whether the desired-state content changed: a new commit
   * retries every failed desired state once (at its turn: a change or a request of the instance runs
   * first, the retry on a later pass).
   */
  private async noteContent(commit: string, tree: CommitTree): Promise<void> {
    const content = await contentKeyOf(tree);
    if (this.repositorySync?.commit !== commit) this.repositorySync = { commit, sync: await repositorySyncAt(tree) };
    if (this.lastContent !== undefined && content !== this.lastContent) {
      // Children are left out: their parent's plan runs them, and only a desired instance's retry clears the mark.
      for (const [key, status] of this.statuses) if (status.sync?.status === 'Failed' && status.parent === undefined) this.retryNowFor.add(key);
    }
    this.lastContent = content;
  }

  /** Each instance's target cluster at this commit; an unknown cluster or a move is refused (src/clusters/assign.ts). */
  private async noteTargets(tree: CommitTree, desired: Map<string, DesiredInstance>, scanned: ReadonlySet<string>): Promise<void> {
    const router = this.options.clusters;
    if (router === undefined) return;
    const applied = (s: InstanceStatus): boolean => s.inventory.length > 0 || s.currentPlan !== undefined || s.sync?.lastApplied !== undefined;
    const server = (s: InstanceStatus): { server?: string } => (s.cluster?.server !== undefined ? { server: s.cluster.server } : {});
    const removed = [...this.statuses.values()].filter((s) => !scanned.has(keyString(s.instance))).map((s) => ({ key: s.instance, cluster: s.cluster?.name, ...server(s) }));
    await assignTargets(router, {
      tree, desired, removed,
      previous: (id) => { const s = this.statuses.get(id); return s && { cluster: s.cluster?.name, applied: applied(s), ...server(s) }; },
    });
  }

  /**
   * A run that broke off because its target cluster cannot be used: the status says so once (cluster,
   * what failed, what to try); later polls failing the same way write nothing (cluster-status.ts).
   */
  private noteUnreachable(key: InstanceKey, commit: string | undefined, err: unknown): void {
    const error = clusterErrorOf(err);
    if (error === undefined || commit === undefined) return;
    const id = keyString(key);
    const status = unreachableStatus({ key, previous: this.statuses.get(id), commit, error, now: this.now().toISOString() });
    if (status === undefined) return;
    this.statuses.set(id, status);
    submitUnreachable(this.writer, status, commit);
  }

  private idleAt(commit: string, allDrift: boolean): boolean {
    const due = this.nextScheduleAt();
    return commit === this.lastCommit && this.workers.size === 0 && (due === undefined || due > this.now().getTime()) && !allDrift && this.driftLoop?.due() !== true && !this.recoveryLoop.due() && this.retryNowFor.size === 0;
  }

  /**
   * Files that name no instance (a nested folder, a YAML file outside a namespace folder...): logged once
   * per commit at warn level, located, as `baton validate` reports them.
   */
  private reportLayout(commit: string, problems: readonly Problem[]): void {
    if (this.layoutReportedFor === commit) return;
    this.layoutReportedFor = commit;
    for (const p of problems) this.log('warn', `${problemLocation(p)}: ${p.code}: ${p.message}`, { commit, code: p.code, file: p.file });
  }

  /**
   * Whether this commit needs no further look: no run broke off, and every instance's status records
   * its desired state as seen (a plan request held back behind a value change is not yet: with status
   * on a separate branch the watched branch does not move, so the next poll must look again anyway).
   */
  private settled(reports: readonly InstanceReport[], desired: ReadonlyMap<string, DesiredInstance>): boolean {
    if (reports.some(retryable)) return false;
    for (const [key, d] of desired) {
      if (this.refused?.keys.has(key) === true) continue;
      if (!sameFingerprint(this.statuses.get(key)?.observed, d.fingerprint)) return false;
    }
    return true;
  }

  /**
   * Signature verification refused the branch tip: once per refused commit, write the refusal into
   * the status of each instance whose desired state that commit changes (compared with the last
   * verified commit; without one, with what the instance's status says was last acted on). Those instances keep what runs now;
   * nothing is applied for them until a verified commit arrives. When the refusal clears, a full pass
   * runs so that their status is rewritten.
   */
  private async noteCommitRefusal(verified: string | undefined, releases: number): Promise<InstanceReport[]> {
    const refusal = this.options.commitRefusal?.();
    if (refusal === undefined) {
      if (this.refused !== undefined) {
        this.refused = undefined;
        this.lastCommit = undefined;
      }
      return [];
    }
    if (this.refused?.commit !== refusal.commit) {
      // A different refused commit: look at every instance again (some refusals may no longer hold).
      this.lastCommit = undefined;
      this.refused = await this.instancesChangedBy(refusal.commit, verified);
    }
    const { keys, named } = this.refused;
    const source = await this.userCommitOf(verified);
    const code = REFUSAL_CODES[refusal.reason];
    const message = `${refusal.message}; its changes are not applied until a commit signed by a trusted key arrives`;
    const reports: InstanceReport[] = [];
    for (const id of keys) {
      // Asked at each instance's turn: the one before waited for its checkpoint.
      if (!this.mayWriteRefusal(id, releases)) continue;
      const previous = this.statuses.get(id);
      // Written before (this agent or one before a restart): nothing new to record.
      if (previous?.refusal?.commit === refusal.commit) continue;
      const d = named.get(id);
      const key = d?.key ?? previous?.instance;
      if (key === undefined) continue;
      const status = await reportCommitRefusal(this.runDeps(), {
        // Never the refused commit as the source of what runs (a later removal loads content from it).
        key, commit: source ?? previous?.sourceCommit ?? refusal.commit,
        ...(previous ? { previous } : {}), ...(d?.framework ? { framework: d.framework } : {}),
        schedules: previous?.schedules ?? [],
        refusal: { code, message, at: this.now().toISOString(), commit: refusal.commit },
        // Asked again once the checkpoint is read: meanwhile the member may have let go of the instance, or
        // a worker may have started or written its status. Then nothing is written; the next pass decides again.
        mayWrite: () => this.mayWriteRefusal(id, releases) && this.statuses.get(id) === previous,
      });
      if (status === undefined) continue;
      this.statuses.set(id, status);
      const outcome: RunOutcome = { kind: 'refused', message };
      this.options.onOutcome?.(outcome);
      this.announce(key, refusal.commit, `commit ${refusal.commit.slice(0, 12)} refused`, outcome);
      this.log('warn', `${id}: refused: ${message}`, { instance: id, commit: refusal.commit, code });
      reports.push({ instance: id, reason: `commit ${refusal.commit.slice(0, 12)} refused`, outcome });
    }
    return reports;
  }

  /** Whether a refusal may be written for the instance now; a worker resuming its unfinished plan writes status, the refusal goes back in after it. */
  private mayWriteRefusal(id: string, releases: number): boolean {
    return this.recordsOutsideWorker(id, releases) && !this.workers.has(id);
  }

  private async userCommitOf(commit: string | undefined): Promise<string | undefined> {
    return commit === undefined ? undefined : this.sources.userCommitOf(commit);
  }

  /**
   * The instances whose desired state `refused` changes, against the last verified commit or, with none
   * known (a restart with a refused tip), against what each instance's status says was last acted on.
   */
  private async instancesChangedBy(refused: string, verified: string | undefined): Promise<NonNullable<Agent['refused']>> {
    await this.loadStatuses();
    const refusedDesired = await scanDesired(await this.store.at(refused), this.parseCache);
    const verifiedDesired = verified !== undefined ? await scanDesired(await this.store.at(verified), this.parseCache) : new Map<string, DesiredInstance>();
    const baseline = (k: string): DesiredInstance['fingerprint'] | undefined => (verified !== undefined ? verifiedDesired.get(k)?.fingerprint : this.statuses.get(k)?.observed);
    // Children of Instance tasks have no file of their own: a commit changes them only through their parent.
    const withFiles = [...this.statuses].filter(([, st]) => st.parent === undefined).map(([k]) => k);
    const candidates = verified !== undefined ? [...refusedDesired.keys(), ...verifiedDesired.keys()] : [...refusedDesired.keys(), ...withFiles];
    const keys = new Set(candidates.filter((k) => !sameFingerprint(refusedDesired.get(k)?.fingerprint, baseline(k))));
    const named = new Map<string, DesiredInstance>();
    for (const k of keys) {
      const d = refusedDesired.get(k) ?? verifiedDesired.get(k);
      if (d) named.set(k, d);
    }
    return { commit: refused, keys, named };
  }

  /**
   * Removes the status file of an instance that only a refused commit ever named. The pass decided with
   * the ownership it took before its fetch; whether the status is still this agent's to write is asked
   * now (a member may be letting go of the instance at this moment: its new owner removes the status).
   */
  private forget(previous: InstanceStatus, releases: number): Promise<InstanceReport>[] {
    const id = keyString(previous.instance);
    if (!this.recordsOutsideWorker(id, releases) || this.workers.has(id)) return [];
    forgetRefusedInstance(this.runDeps(), previous);
    this.statuses.delete(id);
    this.nextRuns.delete(id);
    const outcome: RunOutcome = { kind: 'removed', message: 'only a refused commit named this instance' };
    this.options.onOutcome?.(outcome);
    return [Promise.resolve({ instance: id, reason: 'instance file removed', outcome })];
  }

  private runDeps(): InstanceRunDeps {
    return {
      client: this.options.client, checkpoints: this.options.checkpoints, hooks: this.options.hooks, renderer: this.options.renderer, frameworks: this.frameworks, store: this.store, writer: this.writer, records: this.records,
      now: () => this.now().toISOString(), ...(this.options.onEngineEvent ? { onEngineEvent: this.options.onEngineEvent } : {}),
      ...(this.options.kubeEvents ? { kubeEvents: this.options.kubeEvents } : {}), stepRetries: this.stepRetries,
      ...(this.options.clientFor ? { clientFor: this.options.clientFor } : {}),
      ...(this.options.valuesFor ? { valuesFor: this.options.valuesFor } : {}),
      ...(this.options.ownership ? { childRecord: (child: InstanceKey, parent: InstanceKey) => this.childRecord(child, parent) } : {}),
      ...(this.options.clusters ? { clusterOf: (key: InstanceKey) => this.options.clusters?.clusterOf(key), clusterServerOf: (key: InstanceKey) => this.options.clusters?.serverOf(key), readerFor: (key: InstanceKey) => this.options.clusters?.readerFor(key) } : {}),
    };
  }

  /** A shard member's record of a child its parent's worker meets (child-records.ts): held, or read from the status branch. */
  private childRecord(child: InstanceKey, parent: InstanceKey): Promise<InstanceStatus | undefined> {
    return this.children.meet(child, parent, {
      get: (id) => this.statuses.get(id),
      set: (id, status) => this.statuses.set(id, status),
      readFile: async (path) => {
        const tip = await this.options.mirror.revParse(trackingRef(this.options.statusBranch ?? this.options.branch));
        return tip === undefined ? undefined : (await this.store.at(tip)).readText(path);
      },
      warn: (m) => this.log('warn', m),
    });
  }

  /** Tells the outcome listener; a listener that throws never disturbs the agent. */
  private announce(instance: InstanceKey, commit: string | undefined, reason: string, outcome: RunOutcome): void {
    try {
      this.options.onInstanceOutcome?.({ instance, commit, reason, outcome, at: this.now().toISOString() });
    } catch (err) {
      this.log('warn', `outcome listener failed: ${errorMessage(err)}`);
    }
  }

  /**
   * Adds the current versions of each instance's valuesFrom objects to its fingerprint, so that a
   * changed Secret is a change of desired state. An object that cannot be read keeps the version last
   * acted on (no change is invented from a failed request).
   */
  private async addClusterValues(desired: Map<string, DesiredInstance>): Promise<void> {
    for (const [id, d] of desired) {
      if (d.valuesFrom.length === 0) continue;
      const client = this.options.clientFor?.(d.key) ?? this.options.client;
      try {
        const version = await clusterValuesVersion(client, d.key.namespace, d.valuesFrom);
        const values = valuesDigest(d.valuesFileIds, version);
        d.fingerprint = { ...d.fingerprint, ...(values ? { values } : {}) };
      } catch (err) {
        const previous = this.statuses.get(id)?.observed.values;
        d.fingerprint = { ...d.fingerprint, ...(previous ? { values: previous } : {}) };
        this.log('warn', `${id}: valuesFrom objects could not be read: ${errorMessage(err)}`, { instance: id });
      }
    }
  }

  /**
   * Waits for running workers, pushes pending status: under contention (shard members pushing to the
   * same branch) a rejected push is tried again for up to `shutdownPushMs`, so that a graceful stop
   * leaves nothing unpushed behind (a shard member's next process discards what it finds).
   */
  async drain(): Promise<void> {
    await Promise.all([...this.workers.values()].map((w) => w.done));
    await this.writer.settle(this.options.shutdownPushMs ?? 30_000);
  }

  /** Instances waiting for a free worker slot (the queue-depth metric). */
  get queueDepth(): number {
    return this.semaphore.queued;
  }

  get running(): number {
    return this.workers.size;
  }

  /** Stops after the running steps (superseding every running plan), then pushes pending status. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopSignal.abort();
    for (const w of this.workers.values()) w.abort.abort();
    await this.drain().catch((err: unknown) => this.log('error', `status push on shutdown failed: ${errorMessage(err)}`));
    await this.options.kubeEvents?.flush();
    this.writer.close();
  }

  /** The work one instance needs at this commit: a change to apply, an unfinished plan, a due schedule, or none. */
  private jobFor(key: string, d: DesiredInstance, commit: string, tree: CommitTree, now: Date): Promise<InstanceReport> | undefined {
    const previous = this.statuses.get(key);
    const schedules = scheduleStatus(d.schedules, previous?.schedules ?? [], now);
    this.noteNextRuns(key, schedules);
    // Changed by a refused commit: its status says so, and what runs stays as it is; an unfinished plan
    // (the state under the refusal is the checkpoint's) still resumes, at the verified commit.
    if (this.refused?.keys.has(key) === true) return this.resumeUnderRefusal(key, d, commit, tree, previous, schedules);
    // A signature refusal that no longer applies (the verified commit now in force) is rewritten.
    const staleRefusal = isSignatureRefusal(previous) && previous?.refusal?.commit !== this.refused?.commit;
    if (!sameFingerprint(previous?.observed, d.fingerprint) || UNFINISHED.has(previous?.state ?? '') || staleRefusal) {
      // Already being worked on for this very desired state (the loop does not wait for plans).
      if (this.workers.has(key) && sameFingerprint(this.workers.get(key)?.fingerprint, d.fingerprint)) return undefined;
      const beside = this.besideRunningPlan(key, d, commit, tree, previous, schedules);
      if (beside !== undefined) return beside;
      return this.schedule(d.key, commit, tree, d, changeReason(previous?.observed, d.fingerprint), { schedules });
    }
    // Suspended: nothing runs (no retry, no schedule) until the instance file says otherwise.
    if (d.suspend === true) {
      this.suspended.add(key);
      return undefined;
    }
    this.suspended.delete(key);
    const retry = this.retryOf(key, previous, now);
    if (retry !== undefined) return this.schedule(d.key, commit, tree, d, retry.reason, { schedules, retryNow: retry.now });
    const due = this.startableRun(key, d, schedules, now);
    if (due === undefined) return undefined;
    this.slotsStarted.add(`${key}@${due.slot}`);
    return this.schedule(d.key, commit, tree, d, `schedule ${due.schedule.plan} (${due.schedule.cron}) due ${due.slot}`, { schedules, due });
  }

  /**
   * Only the request file changed while the instance's plan runs: its requests are decided beside the
   * plan (request-lane.ts), which goes on undisturbed, unless one is a new trigger or acts on the plan;
   * then the plan makes way after its running step, as for any new desired state.
   */
  private besideRunningPlan(key: string, d: DesiredInstance, commit: string, tree: CommitTree, previous: InstanceStatus | undefined, schedules: ScheduleStatus[]): Promise<InstanceReport> | undefined {
    const worker = this.workers.get(key);
    if (worker === undefined || !onlyRequestChanged(worker.fingerprint, d.fingerprint)) return undefined;
    // A drift repair or pod work runs: no request acts on it (they name framework plans), so the requests
    // are carried out after it, never by interrupting it (a half-done pod replace helps nobody).
    if (worker.sideRun === true) return this.schedule(d.key, commit, tree, d, changeReason(previous?.observed, d.fingerprint), { schedules, queued: true });
    const lane = worker.lane;
    if (lane === undefined) return undefined;
    // Being decided: the next pass does not decide it again.
    worker.fingerprint = d.fingerprint;
    const reason = changeReason(previous?.observed, d.fingerprint);
    return (async (): Promise<InstanceReport> => {
      try {
        const verdict = await decideBeside({ store: this.options.checkpoints, tree, desired: d, commit, now: this.now().toISOString(), frameworks: this.frameworks });
        if (verdict.kind === 'beside') {
          lane.deliver(verdict.records, d.fingerprint, verdict.requests);
          this.log('info', `${key}: requests decided beside the running plan, which goes on`, { instance: key, commit });
          return { instance: key, reason, outcome: { kind: 'nothing', message: 'requests refused beside the running plan; it goes on' } };
        }
        this.log('info', `${key}: ${verdict.why}: the running plan makes way after its running step`, { instance: key, commit });
      } catch (err) {
        this.log('warn', `${key}: requests could not be decided beside the running plan: ${errorMessage(err)}`, { instance: key });
      }
      return this.schedule(d.key, commit, tree, d, reason, { schedules });
    })();
  }

  /**
   * A failed desired state: retried when its backoff has passed, or at once on a new commit. Each
   * recorded retry time is acted on once (the engine may still say "not yet": its clock decides).
   */
  private retryOf(key: string, previous: InstanceStatus | undefined, now: Date): { reason: string; now: boolean } | undefined {
    const retry = retryDue(previous, now, this.retryNowFor.has(key));
    const retryAt = previous?.sync?.failure?.nextRetryAt;
    if (retry === undefined) this.retryNowFor.delete(key);
    if (retry === undefined || this.workers.has(key) || (!retry.now && this.retried.get(key) === retryAt)) return undefined;
    if (retryAt !== undefined) this.retried.set(key, retryAt);
    this.retryNowFor.delete(key);
    return retry;
  }

  /** An instance a refused commit changes: only an unfinished plan of it runs (resumes), at the verified commit. */
  private resumeUnderRefusal(key: string, d: DesiredInstance, commit: string, tree: CommitTree, previous: InstanceStatus | undefined, schedules: ScheduleStatus[]): Promise<InstanceReport> | undefined {
    const unfinished = UNFINISHED.has(previous?.currentPlan?.state.status ?? '') || UNFINISHED.has(previous?.state ?? '');
    if (!unfinished || this.workers.has(key)) return undefined;
    return this.schedule(d.key, commit, tree, d, 'resuming an unfinished plan (a newer commit is refused)', { schedules });
  }

  /** The schedule due now, unless its slot already started or a broken-off run waits for its retry time. */
  private startableRun(key: string, d: DesiredInstance, schedules: ScheduleStatus[], now: Date): DueRun | undefined {
    const due = dueRun(d.schedules, schedules, now);
    if (due === undefined || this.slotsStarted.has(`${key}@${due.slot}`) || (this.scheduleRetryAt.get(key) ?? 0) > now.getTime()) return undefined;
    return due;
  }

  /**
   * Keeps an instance's schedules for nextScheduleAt, only when it has any: every idle poll walks them,
   * and walking 10,000 empty lists cost ~0.3 ms of a ~12 ms poll (issue #20: the idle poll within 1.2x a fetch).
   */
  private noteNextRuns(key: string, schedules: ScheduleStatus[]): void {
    if (schedules.length > 0) this.nextRuns.set(key, schedules);
    else this.nextRuns.delete(key);
  }

  /** When the loop should poll next for a schedule (ms since epoch), if any schedule is known. */
  nextScheduleAt(): number | undefined {
    // Slots already started are not due again (a long backup must not make the loop spin), and a slot
    // whose run broke off waits for its retry time.
    let min: number | undefined;
    for (const [key, list] of this.nextRuns) {
      // A busy instance runs its schedule after the running plan: the regular poll finds it then.
      if (this.workers.has(key) || this.refused?.keys.has(key) === true || this.suspended.has(key)) continue;
      for (const s of list) {
        if (s.nextRun === undefined || this.slotsStarted.has(`${key}@${s.nextRun}`)) continue;
        const at = Math.max(Date.parse(s.nextRun), this.scheduleRetryAt.get(key) ?? 0);
        min = Math.min(min ?? Infinity, at);
      }
    }
    // Only the statuses with a retry time (StatusMap keeps them apart); a child's failed plan is retried by its parent's, not on its own.
    for (const [key, status] of this.statuses.withRetryTime()) {
      if (status.parent !== undefined) continue;
      const retryAt = status.sync?.failure?.nextRetryAt;
      if (retryAt !== undefined && !this.workers.has(key) && this.retried.get(key) !== retryAt) min = Math.min(min ?? Infinity, Date.parse(retryAt));
    }
    const drift = this.driftLoop?.nextDueAt();
    if (drift !== undefined) min = Math.min(min ?? Infinity, drift);
    const pods = this.recoveryLoop.nextDueAt();
    if (pods !== undefined) min = Math.min(min ?? Infinity, pods);
    return min;
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private schedule(key: InstanceKey, commit: string, tree: CommitTree, desired: DesiredInstance | undefined, reason: string, extra: { schedules?: ScheduleStatus[]; due?: DueRun; retryNow?: boolean; request?: { id: string; plan: string; args: Record<string, string> }; queued?: boolean; after?: () => Promise<void> } = {}): Promise<InstanceReport> {
    const id = keyString(key);
    // Newer desired state supersedes the running plan once its current step ends; a scheduled run
    // never interrupts: it waits for the running plan.
    const lane = new RequestLane();
    return this.work(key, reason, desired?.fingerprint, extra.due === undefined && extra.request === undefined && extra.queued !== true, commit, async (signal) => {
      this.log('info', `reconciling ${id}: ${reason}`, { instance: id, commit });
      const previous = this.statuses.get(id);
      const due = extra.due;
      const schedules = due ? afterRun(extra.schedules ?? [], due, this.now()) : (extra.schedules ?? previous?.schedules ?? []);
      const scheduled = due ? { id: `schedule:${due.schedule.plan}:${due.slot}`, plan: due.schedule.plan, args: { ...(due.schedule.args ?? {}) } } : extra.request;
      // A scheduled run that broke off (not a plan result) is tried again for the same slot, after a pause.
      const retrySlotLater = (): void => {
        if (!due) return;
        this.slotsStarted.delete(`${id}@${due.slot}`);
        this.scheduleRetryAt.set(id, this.now().getTime() + SCHEDULE_RETRY_MS);
      };
      try {
        const result = await runInstance(
          this.runDeps(),
          { key, commit, tree, ...(desired ? { desired } : {}), ...(previous ? { previous } : {}), ...(scheduled ? { scheduled } : {}), schedules, signal, ...(extra.retryNow ? { retryNow: true } : {}), ...(this.repositorySync?.sync ? { repositorySync: this.repositorySync.sync } : {}), lane },
        );
        if (result.outcome.kind === 'error') retrySlotLater();
        else this.scheduleRetryAt.delete(id);
        // What a plan did is checked for drift on the next pass, not after the instance's interval.
        if (result.outcome.kind === 'complete') this.driftLoop?.keeper.forget(key);
        return result;
      } catch (err) {
        retrySlotLater();
        throw err;
      } finally {
        lane.close();
        // Still the instance's worker: bookkeeping the caller asked for once the run ended (the recovery ledger).
        await extra.after?.().catch((err: unknown) => this.log('warn', `${id}: after the run: ${errorMessage(err)}`, { instance: id }));
      }
    }, lane);
  }

  /** A plan run at the last scanned commit, as for a change (the drift loop asks when an instance's checkpoint is gone). */
  private async replan(desired: DesiredInstance, reason: string): Promise<InstanceReport> {
    const commit = this.lastScanned;
    if (commit === undefined) return { instance: keyString(desired.key), reason, outcome: { kind: 'nothing', message: 'no commit scanned yet' } };
    return this.schedule(desired.key, commit, await this.store.at(commit), desired, reason);
  }

  /** A framework plan run once for `request.id` (recovery, decommission), at the last scanned commit, waiting for the running work. */
  private async runRequested(desired: DesiredInstance, request: { id: string; plan: string; args: Record<string, string> }, reason: string, after?: () => Promise<void>): Promise<InstanceReport> {
    const commit = this.lastScanned;
    if (commit === undefined) return { instance: keyString(desired.key), reason, outcome: { kind: 'nothing', message: 'no commit scanned yet' } };
    return this.schedule(desired.key, commit, await this.store.at(commit), desired, reason, { request, ...(after ? { after } : {}) });
  }

  /**
   * Runs `body` as the instance's one worker: after the instance's running work (which `supersede`
   * aborts first), within the concurrency limit; records the outcome and status it returns.
   */
  private work(key: InstanceKey, reason: string, fingerprint: DesiredInstance['fingerprint'] | undefined, supersede: boolean, commit: string | undefined, body: (signal: AbortSignal) => Promise<{ outcome: RunOutcome; status?: InstanceStatus | undefined }>, lane?: RequestLane, sideRun = false): Promise<InstanceReport> {
    const id = keyString(key);
    if (this.stopping) return Promise.resolve({ instance: id, reason, outcome: { kind: 'nothing', message: 'the agent is stopping' } });
    if (!this.mayAct(id)) return Promise.resolve({ instance: id, reason, outcome: { kind: 'nothing', message: 'another shard member acts on this instance' } });
    if (!this.holdsRecord(id)) return Promise.resolve({ instance: id, reason, outcome: { kind: 'nothing', message: 'its status is read from the branch at the next pass' } });
    const running = this.workers.get(id);
    if (supersede) running?.abort.abort();
    const abort = new AbortController();
    const report = (async (): Promise<InstanceReport> => {
      await running?.done;
      return this.semaphore.run(async () => {
        // Superseded (or the agent stopping) while it waited for a worker slot: nothing was started, so
        // nothing needs recording; the newer desired state (or the next agent) takes it from here.
        if (abort.signal.aborted) return { instance: id, reason, outcome: { kind: 'nothing', message: 'superseded before it started' } };
        if (!this.mayAct(id)) return { instance: id, reason, outcome: { kind: 'nothing', message: 'another shard member acts on this instance' } };
        if (!this.holdsRecord(id)) return { instance: id, reason, outcome: { kind: 'nothing', message: 'its status is read from the branch at the next pass' } };
        try {
          const { outcome, status } = await body(abort.signal);
          this.options.onOutcome?.(outcome);
          this.announce(key, commit, reason, outcome);
          if (status) {
            this.statuses.set(id, status);
            this.noteNextRuns(id, status.schedules);
          } else if (outcome.kind === 'removed') {
            this.statuses.delete(id);
            this.nextRuns.delete(id);
            // Its children were removed with it (a shard member holds their records with it).
            for (const child of this.children.release((parent) => parent !== id)) this.statuses.delete(child);
            this.driftLoop?.keeper.forget(key);
          }
          this.log(outcome.kind === 'failed' || outcome.kind === 'refused' || outcome.kind === 'error' ? 'warn' : 'info', `${id}: ${outcome.kind}`, { instance: id, ...outcome });
          return { instance: id, reason, outcome };
        } catch (err) {
          this.log('error', `${id}: ${errorMessage(err)}`, { instance: id });
          this.noteUnreachable(key, commit, err);
          return { instance: id, reason, outcome: { kind: 'error', message: errorMessage(err) } };
        }
      });
    })();
    const done = report.then(() => undefined, () => undefined);
    this.workers.set(id, { abort, done, fingerprint, ...(lane ? { lane } : {}), ...(sideRun ? { sideRun } : {}) });
    void done.then(() => { if (this.workers.get(id)?.done === done) this.workers.delete(id); });
    return report;
  }

  /** Whether this agent may start work on the instance now (always, unless it is a shard member). */
  private mayAct(id: string): boolean {
    return this.options.ownership?.mayAct(id) !== false;
  }

  /**
   * The shard member's ownership for this pass, taken before the fetch (an instance handed over after
   * it is left to the next pass, which fetches the status its previous owner pushed before letting
   * go); a changed one makes the pass look at every instance.
   */
  private noteOwnership(): { snapshot: OwnershipSnapshot; changed: boolean } | undefined {
    const snapshot = this.options.ownership?.snapshot();
    if (snapshot === undefined) return undefined;
    const changed = snapshot.version !== this.ownershipVersion;
    if (changed) this.lastCommit = undefined;
    return { snapshot, changed };
  }

  /** The statuses a pass decides with: every instance's for one agent; a shard member's held share (see loadHandedOver). */
  private async loadOwnedStatuses(owned: { snapshot: OwnershipSnapshot; changed: boolean } | undefined, releases: number): Promise<void> {
    if (owned === undefined) await this.loadStatuses();
    else if (owned.changed) await this.loadHandedOver(owned.snapshot, releases);
  }

  /** The status files the agent wrote before (possibly another agent, before a restart); one agent alone. */
  private async loadStatuses(): Promise<void> {
    if (this.statusesLoaded || this.options.ownership !== undefined) return;
    this.statusesLoaded = true;
    const ref = trackingRef(this.options.statusBranch ?? this.options.branch);
    const pending = await this.options.mirror.revParse(this.writer.pendingRef);
    const tip = pending ?? (await this.options.mirror.revParse(ref));
    if (tip === undefined) return;
    for (const status of await readStatusFiles(await this.store.at(tip), () => true, (m) => this.log('warn', m))) this.statuses.set(keyString(status.instance), status);
  }

  /**
   * Instances this shard member may act on now and did not hold: their status is what their previous
   * owner pushed (it pushes before letting go; a lost owner's missing transitions are derived from the
   * checkpoint), read from the branch fetched after the ownership snapshot. A status read earlier, while
   * the instance was this member's by its own view but still another's to act on, is stale and is
   * replaced: deciding with it would record that owner's transitions a second time. Instances held all
   * along keep the record this member wrote (perhaps still queued).
   */
  private async loadHandedOver(owned: OwnershipSnapshot, releases: number): Promise<void> {
    const tip = await this.options.mirror.revParse(trackingRef(this.options.statusBranch ?? this.options.branch));
    const want = (id: string): boolean => owned.mayAct(id) && !this.held.has(id);
    // A child's record goes with its parent's: read again when the parent's worker meets it.
    for (const id of this.children.release((parent) => !want(parent))) this.statuses.delete(id);
    for (const id of [...this.statuses.keys()]) if (this.children.parentOf(id) === undefined && want(id)) this.statuses.delete(id);
    if (tip === undefined) return;
    const read = await readStatusFiles(await this.store.at(tip), want, (m) => this.log('warn', m));
    // Let go of instances while reading: these records may belong to another member now (see `releases`).
    if (releases !== this.releases) return;
    // A child's file is never read by its own id (it may hash to this member): its parent's owner reads it.
    for (const status of read.filter((st) => st.parent === undefined)) {
      const id = keyString(status.instance);
      this.statuses.set(id, status);
      this.held.add(id);
    }
  }

  /**
   * A shard member's instances to act on this pass: their records were read (or they have none yet); from
   * now on its record is theirs. Not when the member let go of instances since the pass began (`releases`).
   */
  private hold(ids: Iterable<string>, releases: number): void {
    if (this.options.ownership === undefined || releases !== this.releases) return;
    for (const id of ids) this.held.add(id);
  }

  /**
   * Whether status may be written now for the instance by work that is not its worker (a refusal, the
   * removal of a never-applied status), decided by a pass begun after `releases` releases. A release
   * neither stops nor waits for such writes, so they ask at the moment they write: the agent may act on
   * the instance, holds its record, and has let go of nothing since the pass began (else the pass
   * decided with a record the release threw away, perhaps of an instance that has come back since).
   */
  private recordsOutsideWorker(id: string, releases: number): boolean {
    return this.mayAct(id) && this.holdsRecord(id) && releases === this.releases;
  }

  /** Whether this agent decides with its own record of the instance (always, unless it is a shard member that has not read it yet). */
  private holdsRecord(id: string): boolean {
    return this.options.ownership === undefined || this.held.has(id);
  }

  /**
   * A shard member lets go of the instances `keep` no longer accepts: their running steps end (the plans
   * are superseded there and resume on the new owner from the checkpoint), their status is pushed and
   * forgotten here. Throws when the push fails: the instances must not change hands with status unpushed.
   */
  async release(keep: (id: string) => boolean): Promise<void> {
    const leaving = [...this.workers].filter(([id]) => !keep(id));
    if (leaving.length > 0) this.log('info', `letting go of ${leaving.length} instances with work running: ${leaving.map(([id]) => id).join(', ')}`);
    this.releases += 1;
    for (const [, w] of leaving) w.abort.abort();
    await Promise.all(leaving.map(([, w]) => w.done));
    await this.writer.flush();
    if (leaving.length > 0) this.log('info', `let go of ${leaving.length} instances`);
    for (const id of [...this.held]) if (!keep(id)) this.held.delete(id);
    // Children go with their parents (their own ids never decide: child-records.ts).
    for (const id of this.children.release(keep)) this.statuses.delete(id);
    for (const id of [...this.statuses.keys()]) if (this.children.parentOf(id) === undefined && !keep(id)) { this.statuses.delete(id); this.nextRuns.delete(id); this.retried.delete(id); this.retryNowFor.delete(id); this.scheduleRetryAt.delete(id); }
    for (const slot of [...this.slotsStarted]) if (!keep(slot.slice(0, slot.lastIndexOf('@')))) this.slotsStarted.delete(slot);
  }
}
