/**
 * The agent's pod pass (src/recovery/, docs/recovery.md): for each instance the agent has brought to
 * its desired state, the next pod work (a `pod-restart` / `pod-replace` request from Git, the volumes
 * of replicas a scale-down removed, automatic recovery of pods that stay not ready), run as the
 * instance's worker. Pod actions and decommissions are runs of pseudo-plans recorded through the same
 * record book as repairs (started, then their one end, each in its own commit, with the pods and who
 * asked in the trailers); a framework plan (`recovery`, `decommission`) runs as a requested plan run
 * with POD=<pod>.
 */
import jsYaml from 'js-yaml';
import { errorMessage } from '../errors.js';
import type { CommitTree } from '../git/tree.js';
import type { Checkpoint } from '../plans/checkpoint.js';
import type { EngineEvent } from '../plans/events.js';
import { nextCare, recordRecoveryPlanRuns, recoveryRequestId, runDecommission, runPodAction, RECOVERY_ACTOR, type CareWork, type PodRequest } from '../recovery/index.js';
import type { AgentLog, InstanceReport } from './agent.js';
import { driftReporter, OneCommitEach, recordRunTransitions, repairListener } from './drift-report.js';
import type { InstanceRunDeps, RunOutcome } from './instance-run.js';
import { parseRequestFile, requestPath } from './request-file.js';
import { keyString, sameFingerprint, type DesiredInstance } from './scan.js';
import type { InstanceKey, InstanceStatus } from './status-file.js';

export interface RecoveryHost {
  deps(): InstanceRunDeps;
  status(id: string): InstanceStatus | undefined;
  setStatus(id: string, status: InstanceStatus): void;
  busy(id: string): boolean;
  asWorker(key: InstanceKey, reason: string, desired: DesiredInstance, work: (signal: AbortSignal) => Promise<{ outcome: RunOutcome; status?: InstanceStatus }>): Promise<InstanceReport>;
  /** A framework plan run once for the request id, with arguments (POD=<pod>), as the instance's worker; `after` runs in the worker once the run ended. */
  runPlan(desired: DesiredInstance, request: { id: string; plan: string; args: Record<string, string> }, reason: string, after?: () => Promise<void>): Promise<InstanceReport>;
  log: AgentLog;
  now(): Date;
}

export interface RecoveryPassInput {
  commit: string;
  tree: CommitTree;
  desired: ReadonlyMap<string, DesiredInstance>;
}

/** How often pods are looked at when nothing else wakes the agent (default; `podCheckIntervalMs`). */
export const DEFAULT_POD_CHECK_MS = 30_000;

export class RecoveryLoop {
  private running = false;
  /** Whether the last pass found an instance with recovery rules, a decommission rule or pod requests. */
  private watching = true;
  private nextAt = 0;
  /** Held pods last logged per instance, so a held pod is logged when the reason changes, not every pass. */
  private readonly heldLogged = new Map<string, string>();
  /** Pod requests by request file blob id, and `suspend` by instance file blob id: each file is parsed once, not every pass. */
  private readonly podRequestsByBlob = new BoundedMemo<PodRequest[]>();
  private readonly suspendedByBlob = new BoundedMemo<boolean>();

  constructor(private readonly host: RecoveryHost, private readonly intervalMs = DEFAULT_POD_CHECK_MS) {}

  /** Whether a pass would look at pods now (the agent polls for it even when Git did not move). */
  due(): boolean {
    return this.watching && this.host.now().getTime() >= this.nextAt;
  }

  /**
   * The agent queued a pass (it runs after the plans the agent's pass started): not due again before
   * then, so a loop asking when to wake does not spin while those plans run.
   */
  queued(): void {
    this.nextAt = Math.max(this.nextAt, this.host.now().getTime() + this.intervalMs);
  }

  nextDueAt(): number | undefined {
    return this.watching ? this.nextAt : undefined;
  }

  async pass(input: RecoveryPassInput): Promise<InstanceReport[]> {
    if (this.running) return [];
    this.running = true;
    this.nextAt = this.host.now().getTime() + this.intervalMs;
    this.watching = false;
    try {
      const jobs: Promise<InstanceReport>[] = [];
      for (const [id, d] of input.desired) {
        const job = await this.instance(id, d, input).catch((err: unknown) => {
          this.host.log('warn', `${id}: pods: ${errorMessage(err)}`, { instance: id });
          return undefined;
        });
        if (job) jobs.push(job.job);
      }
      return await Promise.all(jobs);
    } finally {
      this.running = false;
    }
  }

  private async instance(id: string, d: DesiredInstance, input: RecoveryPassInput): Promise<{ job: Promise<InstanceReport> } | undefined> {
    const status = this.host.status(id);
    if (status === undefined || status.state === 'REFUSED' || status.state === 'REMOVED' || d.framework === undefined) return undefined;
    // Busy, or the agent has not looked at this desired state yet (a new request file is one): later.
    if (this.host.busy(id) || !sameFingerprint(status.observed, d.fingerprint)) {
      this.watching = true;
      return undefined;
    }
    // The scan's fingerprint holds the request file's blob id (none: no file) and the framework folder's tree id.
    const requestBlob = d.fingerprint.request;
    const requests = requestBlob === undefined ? [] : await this.podRequestsByBlob.get(requestBlob, () => podRequests(input.tree, d.key));
    // The agent's one framework cache (deps): a version is parsed once, not per instance per pass.
    const fw = await this.host.deps().frameworks.load(input.tree, d.framework.name, d.framework.version, d.fingerprint.framework);
    const recovery = fw.ok ? fw.value.decl.recovery : undefined;
    const decommission = fw.ok ? fw.value.decl.decommission : undefined;
    if (requests.length === 0 && recovery === undefined && decommission === undefined) return undefined;
    this.watching = true;
    const deps = this.host.deps();
    const checkpoint = (await deps.checkpoints.load(d.key))?.checkpoint;
    if (checkpoint === undefined || this.host.busy(id)) return undefined;
    const automatic = status.sync?.status === 'Synced' && status.drift?.status !== 'Drifted' && !(await this.suspendedByBlob.get(d.fingerprint.instance, () => suspended(input.tree, d.file)));
    const client = deps.clientFor?.(d.key) ?? deps.client;
    const plan = await nextCare({ client, instance: d.key, checkpoint, requests, ...(recovery ? { recovery } : {}), ...(decommission ? { decommission } : {}), automatic, now: this.host.now().getTime() });
    this.logHeld(id, plan.held);
    if (plan.work === undefined) return undefined;
    const job = this.run(d, status, checkpoint, plan.work, input.commit);
    return job ? { job } : undefined;
  }

  private run(d: DesiredInstance, status: InstanceStatus, checkpoint: Checkpoint, work: CareWork, commit: string): Promise<InstanceReport> | undefined {
    const id = keyString(d.key);
    // Decided outside the instance's worker, across waits: the record decided with must still be the
    // agent's. A plan may have run meanwhile, or a shard member let go of the instance and got it back
    // (its record read again from the branch: another member may have carried out this very request,
    // and the checkpoint read before is older). The next pass decides again.
    if (this.host.status(id) !== status || this.host.busy(id)) {
      this.watching = true;
      return undefined;
    }
    if (work.kind === 'recover' && work.action === 'plan' && work.plan !== undefined) {
      const pod = work.pods[0];
      if (pod === undefined) return undefined;
      const plan = work.plan;
      // The run history keeps 20 runs: the ledger keeps the hour that limits.maxActionsPerHour counts.
      const ledger = (): Promise<void> => recordRecoveryPlanRuns(this.host.deps().checkpoints, d.key, plan);
      return this.host.runPlan(d, { id: recoveryRequestId(pod.pod, pod.since), plan, args: { POD: pod.pod } }, work.reason, ledger);
    }
    if (work.kind === 'decommission' && work.plan !== undefined) {
      const pending = work.removed.find((r) => !checkpoint.handledRequests.includes(decommissionId(r.pod, r.claims[0]?.uid ?? '')));
      if (pending !== undefined) return this.host.runPlan(d, { id: decommissionId(pending.pod, pending.claims[0]?.uid ?? ''), plan: work.plan, args: { POD: pending.pod } }, `decommission: ${pending.pod} was removed by a scale-down`);
    }
    const what = work.kind === 'request' ? `${work.request.action} ${work.request.pod} (request ${work.request.id})` : work.kind === 'recover' ? `recovery: ${work.action} ${work.pods.map((p) => p.pod).join(', ')}` : `decommission ${work.removed.map((r) => r.pod).join(', ')}`;
    return this.host.asWorker(d.key, what, d, async (signal) => {
      const deps = this.host.deps();
      const latest = this.host.status(id) ?? status;
      const live = { ...(latest.health ? { health: latest.health } : {}), ...(latest.drift ? { drift: latest.drift } : {}) };
      const reporter = driftReporter({ writer: deps.writer, now: deps.now, records: deps.records }, latest, checkpoint, () => live, []);
      const between = (): Promise<void> => deps.writer.flushIfPending().catch(() => undefined);
      // A pod run the record lacks (the agent stopped between its checkpoint write and the commit).
      await recordRunTransitions(reporter, latest, checkpoint.pods?.last, between);
      const commits = new OneCommitEach(deps.writer);
      const listeners = [repairListener(reporter, commits), ...(deps.onEngineEvent ? [deps.onEngineEvent] : []), ...(deps.kubeEvents ? [deps.kubeEvents.listener()] : [])];
      const onEvent = (e: EngineEvent): void => { for (const l of listeners) l(e); };
      const client = deps.clientFor?.(d.key) ?? deps.client;
      const base = { client, hooks: deps.hooks, store: deps.checkpoints, instance: d.key, sourceCommit: commit, signal, onEvent };
      let result: { kind: string; run?: { plan: string; state: { status: string; message?: string } } };
      if (work.kind === 'request') {
        const r = work.request;
        const by = r.requestedBy ?? 'unknown';
        // The record as it is now, after the waits above: a request it already names as handled is not carried out again.
        const handled = (this.host.status(id) ?? latest).handledRequests;
        result = await runPodAction({ ...base, action: r.action === 'pod-restart' ? 'restart' : 'replace', pods: [r.pod], by, requestId: r.id, handled, reason: `requested by ${by}${r.reason ? `: ${r.reason}` : ''} (request ${r.id})` });
      } else if (work.kind === 'recover') {
        const action = work.action === 'replace' ? 'replace' : 'restart';
        result = await runPodAction({ ...base, action, pods: work.pods.map((p) => p.pod), by: RECOVERY_ACTOR, reason: work.reason, notReadySince: Object.fromEntries(work.pods.map((p) => [p.pod, p.since])) });
      } else {
        result = await runDecommission({ ...base, removed: work.removed, deleteClaims: work.deleteClaims, reason: `decommission: ${work.removed.map((r) => `${r.pod} (${r.claims.map((c) => c.name).join(', ')})`).join('; ')} removed by a scale-down; volumes: ${work.deleteClaims ? 'delete' : 'keep'}` });
      }
      await commits.settled();
      const outcome = podOutcome(result);
      return { outcome, ...(reporter.last ? { status: reporter.last } : {}) };
    });
  }

  private logHeld(id: string, held: readonly { pod: string; why: string }[]): void {
    const text = held.map((h) => `${h.pod}: ${h.why}`).join('; ');
    if (text === (this.heldLogged.get(id) ?? '')) return;
    this.heldLogged.set(id, text);
    if (text !== '') this.host.log('info', `${id}: recovery holds back: ${text}`, { instance: id });
  }
}

/** The worker's outcome of a pod run (a pod action or a decommission). */
function podOutcome(result: { kind: string; run?: { plan: string; state: { status: string; message?: string } } }): RunOutcome {
  const plan = result.run?.plan ?? 'pod';
  return result.kind === 'complete' ? { kind: 'complete', plan }
    : result.kind === 'failed' ? { kind: 'failed', plan, message: result.run?.state.message ?? 'failed' }
    : result.kind === 'superseded' ? { kind: 'superseded', plan }
    : result.kind === 'handled' ? { kind: 'nothing', message: 'the pod request was carried out before: nothing done again' }
    : { kind: 'nothing', message: 'skipped' };
}

/** Values derived from a file by its blob id (content-addressed, so never stale); cleared when full. */
class BoundedMemo<T> {
  private readonly values = new Map<string, T>();
  constructor(private readonly maxEntries = 4096) {}

  async get(blob: string, derive: () => Promise<T>): Promise<T> {
    const known = this.values.get(blob);
    if (known !== undefined) return known;
    const value = await derive();
    if (this.values.size >= this.maxEntries) this.values.clear();
    this.values.set(blob, value);
    return value;
  }
}

const decommissionId = (pod: string, uid: string): string => `decommission-${pod}-${uid.slice(0, 8)}`;

/** The pod requests of the instance's request file (a broken file is reported by the plan run, not here). */
async function podRequests(tree: CommitTree, key: InstanceKey): Promise<PodRequest[]> {
  const text = await tree.readText(requestPath(key));
  if (text === undefined) return [];
  try {
    return parseRequestFile(text, requestPath(key)).flatMap((r) => (r.action === 'pod-restart' || r.action === 'pod-replace') && r.pod !== undefined
      ? [{ id: r.id, action: r.action, pod: r.pod, ...(r.reason ? { reason: r.reason } : {}), ...(r.requestedBy ? { requestedBy: r.requestedBy } : {}) }]
      : []);
  } catch {
    return [];
  }
}

/** `suspend: true` in the instance file (issue #13): nothing is recovered or decommissioned. */
async function suspended(tree: CommitTree, file: string): Promise<boolean> {
  const text = await tree.readText(file);
  try {
    const doc = text === undefined ? undefined : jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
    return typeof doc === 'object' && doc !== null && (doc as { suspend?: unknown }).suspend === true;
  } catch {
    return false;
  }
}
