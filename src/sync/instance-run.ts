/**
 * One instance's turn: load its desired state from the tree at the commit (or, when its file was
 * removed, from the commit it was last applied at), reconcile through the plan engine, and report
 * every transition to the status writer. Bad content refuses this instance only.
 */
import type { EngineEvent, EventListener } from '../plans/events.js';
import type { KubeClient } from '../kube/client.js';
import type { Checkpoint, CheckpointStore, StoredCheckpoint } from '../plans/checkpoint.js';
import type { EngineHooks } from '../plans/hooks.js';
import type { PlanEventSink } from '../plans/kube-events.js';
import { loadInstanceSource, type InstanceSource } from '../plans/instance-source.js';
import type { ValuesContext } from '../secrets/instance-values.js';
import { reconcile, type ReconcileResult } from '../plans/reconcile.js';
import { RenderProblemsError, maskSensitive, problemLocation, type FrameworkCache, type Renderer } from '../render/index.js';
import { errorMessage } from '../errors.js';
import type { CommitTree, ObjectStore } from '../git/tree.js';
import { parseRequestFile, requestPath, triggerOf, type OperatorRequest } from './request-file.js';
import { carryOutRequests } from '../control/index.js';
import type { DesiredInstance } from './scan.js';
import type { Fingerprint, InstanceKey, InstanceStatus, RefusalStatus, ScheduleStatus } from './status-file.js';
import { StatusReporter, type RecordBook, type ReporterContext } from './status-reporter.js';
import type { StatusWriter } from './status-writer.js';
import { driftSettingsOf } from '../drift/settings.js';
import { holdText } from '../control/describe.js';
import type { SyncSettingsDecl } from '../render/index.js';
import type { StepRetryLog } from './retry-log.js';
import { heldFingerprint, holdForDependencies } from './dependency-wait.js';
import type { RequestLane } from './request-lane.js';
import { recordRunTransitions } from './drift-report.js';
import { podRequestWaits, podWaitText } from '../recovery/index.js';
import { withRequestsOf } from '../plans/request-merge.js';
import { childStatusObserver } from './child-status.js';

export type RunOutcome =
  | { kind: 'complete'; plan: string }
  | { kind: 'failed'; plan: string; message: string }
  | { kind: 'superseded'; plan: string }
  /** A canary strategy waits for `baton plan continue`. */
  | { kind: 'waiting'; plan: string; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'nothing'; message: string }
  | { kind: 'removed'; message: string }
  /** The run could not finish (cluster unreachable, checkpoint conflict...): retried on the next poll. */
  | { kind: 'error'; message: string };

export interface InstanceRunDeps {
  client: KubeClient;
  checkpoints: CheckpointStore;
  hooks: EngineHooks;
  renderer: Renderer;
  /** The agent's one cache of framework versions (by tree id): every load of the render path goes through it. */
  frameworks: FrameworkCache;
  store: ObjectStore;
  writer: StatusWriter;
  /** The last status written for each instance: transitions are derived against it (see transitions.ts). */
  records: RecordBook;
  /**
   * A child's record as its parent's worker meets it, when records are kept per share (a shard member
   * reads it from the branch the first time: child-records.ts); absent: `records` holds every record.
   */
  childRecord?: (child: InstanceKey, parent: InstanceKey) => Promise<InstanceStatus | undefined>;
  now: () => string;
  /** Every engine event, after the status reporter saw it (metrics). */
  onEngineEvent?: EventListener;
  /** Records Kubernetes Events for the run (optional; best effort). */
  kubeEvents?: PlanEventSink;
  /** The client an instance's objects are applied with (a tenant's impersonated account); default `client`. */
  clientFor?: (key: InstanceKey) => KubeClient;
  /** Age keys and the cluster an instance's encrypted values and valuesFrom are read with. */
  valuesFor?: (key: InstanceKey) => ValuesContext;
  /** Logs the retries of failing steps at warn, rate-limited. */
  stepRetries?: StepRetryLog;
  /** The instance's target cluster by name, when it names one (src/clusters/); status records it. */
  clusterOf?: (key: InstanceKey) => string | undefined;
  /** The API server the instance's objects are on (recorded in its status), once known. */
  clusterServerOf?: (key: InstanceKey) => string | undefined;
  /** The client to read an instance's cluster with (the agent's own account); `client` when absent or undefined. */
  readerFor?: (key: InstanceKey) => KubeClient | undefined;
}

export interface InstanceRunInput {
  key: InstanceKey;
  /** The user's commit whose desired state this look is about (never one of the agent's status commits). */
  commit: string;
  tree: CommitTree;
  /** Absent: the instance file was removed. */
  desired?: DesiredInstance;
  previous?: InstanceStatus;
  /** A schedule's run, or undefined for a change-driven run. */
  scheduled?: { id: string; plan: string; args: Record<string, string> };
  schedules: ScheduleStatus[];
  signal?: AbortSignal;
  /** Retry a failed desired state now (a new commit arrived), whatever its backoff says. */
  retryNow?: boolean;
  /** baton.yaml's `sync:` at the commit (retry backoff, with the instance file's own). */
  repositorySync?: SyncSettingsDecl;
  /** Requests decided beside this run while it goes on (request-lane.ts): recorded by its reporter. */
  lane?: RequestLane;
}

/**
 * The reporter for one instance's turn: status is built from the cluster checkpoint plus what the agent knows.
 * `observedNow`, when given, is asked at every write what desired state the status records as seen.
 */
function reporterFor(deps: InstanceRunDeps, input: Pick<InstanceRunInput, 'key' | 'commit' | 'desired' | 'previous' | 'schedules'> & { framework?: DesiredInstance['framework'] }, checkpoint: Checkpoint | undefined, observedNow?: () => Fingerprint): StatusReporter {
  const observed: Fingerprint = input.desired?.fingerprint ?? input.previous?.observed ?? { instance: '' };
  const ctx: ReporterContext = {
    key: input.key,
    framework: input.desired?.framework ?? input.previous?.framework ?? input.framework ?? { name: checkpoint?.framework ?? 'unknown' },
    sourceCommit: input.commit,
    // A getter, read by the reporter at each write: what counts as seen can change during the run.
    get observed(): Fingerprint { return observedNow?.() ?? observed; },
    sensitiveValues: [],
    schedules: input.schedules,
    now: deps.now,
    // Health and drift stay as last measured until the next drift check (after the plan).
    live: () => ({ ...(input.previous?.health ? { health: input.previous.health } : {}), ...(input.previous?.drift ? { drift: input.previous.drift } : {}) }),
  };
  const cluster = deps.clusterOf?.(input.key);
  if (cluster !== undefined) {
    ctx.cluster = cluster;
    // Once recorded, the server stays what the status says (it is where the objects are); first known when connected.
    const recorded = input.previous?.cluster?.name === cluster ? input.previous.cluster.server : undefined;
    ctx.clusterServer = () => recorded ?? deps.clusterServerOf?.(input.key);
  }
  return new StatusReporter(deps.writer, ctx, checkpoint, deps.records);
}

/**
 * What a run records as seen. A request file that arrives together with another change is not what the
 * selected plan runs; recording its blob would hide the request for good, so while a plan runs that did
 * not handle it, the request is left out and the next pass sees it as new. A refused or idle run keeps
 * it: another look would decide the same.
 */
function observedFingerprint(full: Fingerprint, requestId: string | undefined, planStarted: boolean, checkpoint: Checkpoint | undefined): Fingerprint {
  if (full.request === undefined || requestId === undefined || !planStarted || checkpoint?.handledRequests.includes(requestId) === true) return full;
  const { request: _unhandled, ...rest } = full;
  return rest;
}

export async function runInstance(deps: InstanceRunDeps, input: InstanceRunInput): Promise<{ outcome: RunOutcome; status: InstanceStatus | undefined }> {
  const { key } = input;
  const file = input.desired?.file ?? (await removedFile(deps, input));
  const stored = await deps.checkpoints.load(key);
  /** The id of the request file's request (not a schedule's), once loaded. */
  let requestId: string | undefined;
  let planStarted = false;
  /** While dependencies are not ready the desired state is not recorded as seen: the next poll looks again. */
  let waiting = false;
  const full = input.desired?.fingerprint ?? input.previous?.observed ?? { instance: '' };
  const seen = (): Fingerprint => input.lane?.observed ?? observedFingerprint(full, requestId, planStarted, reporter.checkpoint);
  const reporter: StatusReporter = reporterFor(deps, input, stored?.checkpoint, () => (waiting ? heldFingerprint(input) : seen()));
  attachLane(input.lane, reporter);

  let source: InstanceSource;
  let requests: OperatorRequest[];
  try {
    // The layout refused this instance (two files for it, a symbolic link): nothing runs, nothing is deleted.
    if (input.desired?.refusal !== undefined) throw new RenderProblemsError(input.desired.refusal);
    ({ source, requests } = await loadSource(deps, input, file));
  } catch (err) {
    return { outcome: refuse(deps, key, reporter, err, []), status: reporter.last };
  }
  if (input.desired !== undefined && input.scheduled === undefined) requestId = source.desired.request?.id;
  await prepareReporter(deps, reporter, { source, requests, lane: input.lane, checkpoint: stored?.checkpoint });
  const notePlanStart: EventListener = (e) => { if (e.type === 'plan-started') planStarted = true; };
  const retries = deps.stepRetries;
  const listeners = [
    notePlanStart, reporter.onEvent, ...(deps.kubeEvents ? [deps.kubeEvents.listener(() => source.sensitiveValues)] : []),
    ...(retries ? [(e: EngineEvent): void => retries.note(e, source.sensitiveValues)] : []), ...(deps.onEngineEvent ? [deps.onEngineEvent] : []),
  ];

  const client = deps.clientFor?.(key) ?? deps.client;
  // Operator requests and suspend first (they act on the checkpoint), then dependencies (they hold plans).
  const held = await operatorsFirst(deps, input, { source, requests, reporter, client, emit: (e) => { for (const listen of listeners) listen(e); } });
  if (held !== undefined) return { outcome: held, status: reporter.last };
  const waitingOn = await holdForDependencies(deps, input, reporter, source, () => { waiting = true; });
  if (waitingOn) return { outcome: waitingOn, status: reporter.last };

  let result: ReconcileResult;
  try {
    result = await reconcile({
      client,
      store: deps.checkpoints,
      ...unchangedSince(stored, reporter),
      hooks: deps.hooks,
      instance: key,
      framework: source.framework.name,
      desired: source.desired,
      render: (plan, args) => source.render(plan, args),
      renderedObjects: () => source.renderedObjects(),
      ownedObjects: source.ownedObjects,
      children: source.children,
      onEvent: (e) => { for (const listen of listeners) listen(e); },
      sensitiveValues: source.sensitiveValues,
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.retryNow ? { retryNow: true } : {}),
      retry: driftSettingsOf(input.repositorySync, input.desired?.sync).retry,
      sourceCommit: input.commit,
    });
  } catch (err) {
    // A template that fails to render is bad content like a bad value: refused, not retried every poll.
    if (!(err instanceof RenderProblemsError)) throw err;
    return { outcome: refuse(deps, key, reporter, err, source.sensitiveValues), status: reporter.last };
  }
  const reported = await reportResult(deps, input, reporter, result);
  return { ...reported, outcome: maskOutcome(reported.outcome, source.sensitiveValues) };
}

/** The checkpoint loaded at the start, for the engine, unless requests (carried out, or recorded beside through the lane) changed it since. */
function unchangedSince(stored: StoredCheckpoint | undefined, reporter: StatusReporter): { loaded?: { stored: StoredCheckpoint | undefined } } {
  return reporter.checkpoint === stored?.checkpoint ? { loaded: { stored } } : {};
}

/** What every status of this run carries (masking, waiting pod requests), and the side runs the record lacks. */
async function prepareReporter(deps: InstanceRunDeps, reporter: StatusReporter, at: { source: InstanceSource; requests: OperatorRequest[]; lane: RequestLane | undefined; checkpoint: Checkpoint | undefined }): Promise<void> {
  reporter.setSensitiveValues(at.source.sensitiveValues);
  // Pod requests wait for this run; the status says so (requests committed during it come through the lane).
  reporter.setPodRequests((cp) => podRequestWaits(at.lane?.requests ?? at.requests, cp));
  await recordSideRuns(deps, reporter, at.checkpoint);
}

/**
 * A repair or pod action the record lacks (a direct \`baton pod replace --kubeconfig\`, or an agent that
 * stopped before committing it): its started and end are committed before this run's first status,
 * which would otherwise show the run in \`plans:\` with no transition in git log for it.
 */
async function recordSideRuns(deps: InstanceRunDeps, reporter: StatusReporter, cp: Checkpoint | undefined): Promise<void> {
  const between = (): Promise<void> => deps.writer.flushIfPending().catch(() => undefined);
  for (const run of [cp?.repair?.last, cp?.pods?.last]) {
    if (await recordRunTransitions(reporter, reporter.last, run, between) > 0) await between();
  }
}

/** Requests refused beside this run (request-lane.ts) are recorded at once, with the run's own state (its writes merge them). */
function attachLane(lane: RequestLane | undefined, reporter: StatusReporter): void {
  lane?.attach((records) => {
    reporter.checkpoint = reporter.checkpoint === undefined ? records : withRequestsOf(reporter.checkpoint, records);
    reporter.recordTransitions();
  }, () => {
    // A pod request committed while this plan runs waits for it: said at once, not at the next transition.
    const waits = podRequestWaits(lane.requests ?? [], reporter.checkpoint);
    const listed = new Set((reporter.last?.podRequests ?? []).map((w) => w.id));
    if (waits.length === 0 || waits.every((w) => listed.has(w.id))) return;
    const run = reporter.checkpoint?.active;
    reporter.write({ ...reporter.transition('pod-request-waiting', run?.state.status ?? 'COMPLETE', run), message: podWaitText(waits.filter((w) => !listed.has(w.id))) });
  });
}

/**
 * Content that cannot be loaded or rendered refuses this instance: status REFUSED with the located
 * problems (file:line:col), and a Kubernetes Event. Sensitive values are masked in all of it.
 */
function refuse(deps: InstanceRunDeps, key: InstanceKey, reporter: StatusReporter, err: unknown, sensitiveValues: readonly string[]): RunOutcome {
  const problems = err instanceof RenderProblemsError ? err.problems.filter((p) => p.severity === 'error').map((p) => `${problemLocation(p)}: ${p.code}: ${p.message}`) : [];
  const message = maskSensitive(problems[0] ?? errorMessage(err), sensitiveValues);
  const code = err instanceof RenderProblemsError ? 'INVALID_CONTENT' : ((err as { code?: string }).code ?? 'LOAD_FAILED');
  const listed = maskSensitive(problems, sensitiveValues);
  reporter.write({ ...reporter.transition('refused', 'REFUSED'), message }, { refusal: { code, message, at: deps.now(), ...(listed.length > 0 ? { problems: listed } : {}) } });
  deps.kubeEvents?.record({ type: 'refused', instance: key, refusal: { code, message, at: deps.now(), details: {} } });
  return { kind: 'refused', message };
}

/** The outcome with sensitive values masked in its message: the agent logs and prints it. */
function maskOutcome(outcome: RunOutcome, sensitiveValues: readonly string[]): RunOutcome {
  return 'message' in outcome ? { ...outcome, message: maskSensitive(outcome.message, sensitiveValues) } : outcome;
}

/**
 * The final status of a reconcile: the plan transitions not yet recorded (the completion waits for
 * pruning, so it carries the final inventory), or the one transition of an outcome without a plan.
 */
async function reportResult(deps: InstanceRunDeps, input: InstanceRunInput, reporter: StatusReporter, result: ReconcileResult): Promise<{ outcome: RunOutcome; status: InstanceStatus | undefined }> {
  const { key } = input;
  switch (result.kind) {
    case 'ran': {
      const run = result.execution.run;
      // The reporter holds the checkpoint as last saved (every write is a `checkpoint` event, requests beside come through the lane).
      reporter.recordTransitions();
      if (result.execution.outcome === 'failed') return { outcome: { kind: 'failed', plan: run.plan, message: result.execution.error.message }, status: reporter.last };
      if (result.execution.outcome === 'superseded') return { outcome: { kind: 'superseded', plan: run.plan }, status: reporter.last };
      if (result.execution.outcome === 'waiting') return { outcome: { kind: 'waiting', plan: run.plan, message: holdText(key, run) ?? 'waiting for baton plan continue' }, status: reporter.last };
      return { outcome: { kind: 'complete', plan: run.plan }, status: reporter.last };
    }
    case 'refused':
      reporter.write({ ...reporter.transition('refused', 'REFUSED'), message: result.refusal.message }, { refusal: { code: result.refusal.code, message: result.refusal.message, at: result.refusal.at } });
      return { outcome: { kind: 'refused', message: result.refusal.message }, status: reporter.last };
    case 'nothing': {
      const previous = reporter.last;
      const settled = reportSettledRun(reporter);
      if (settled) return { outcome: settled, status: reporter.last };
      // Record that this desired state was seen, so it is not looked at again.
      // (Also when a refusal is on record that no longer holds: the status must say so.)
      if (previous === undefined || previous.sourceCommit !== input.commit || previous.refusal !== undefined) {
        const t = reporter.transition('observed', reporter.checkpoint?.active?.state.status ?? 'COMPLETE', reporter.checkpoint?.active);
        reporter.write({ ...t, message: result.reason });
      }
      return { outcome: { kind: 'nothing', message: result.reason }, status: reporter.last };
    }
    case 'removed': {
      const failed = result.report.failed.length > 0 || (result.cleanup !== undefined && result.cleanup.outcome !== 'complete');
      if (failed) {
        reporter.checkpoint = (await deps.checkpoints.load(key))?.checkpoint ?? reporter.checkpoint;
        const message = `removal incomplete: ${result.report.failed.map((f) => f.object).join(', ') || 'cleanup plan did not complete'}`;
        reporter.write({ ...reporter.transition('plan-failed', 'FATAL_ERROR'), message });
        return { outcome: { kind: 'failed', plan: 'cleanup', message }, status: reporter.last };
      }
      reporter.write(reporter.transition('removed', 'REMOVED'), { removed: true });
      return { outcome: { kind: 'removed', message: `${result.report.deleted.length} objects deleted` }, status: undefined };
    }
  }
}

/**
 * Transitions the checkpoint has and Git does not (the agent was killed between the two): recorded now,
 * once. The outcome is the end of the run, when that was among them.
 */
function reportSettledRun(reporter: StatusReporter): RunOutcome | undefined {
  const recorded = reporter.recordTransitions();
  const end = [...recorded].reverse().find((t) => t.event === 'plan-complete' || t.event === 'plan-failed');
  if (end === undefined) return undefined;
  if (end.event === 'plan-complete') return { kind: 'complete', plan: end.run.plan };
  const state = end.run.state;
  return { kind: 'failed', plan: end.run.plan, message: state.status === 'FATAL_ERROR' ? state.message : state.status };
}

export interface CommitRefusalInput {
  key: InstanceKey;
  /** The commit the instance's status describes: the last verified one (what runs), if any. */
  commit: string;
  previous?: InstanceStatus;
  /** The framework the refused commit names, for an instance that has no status yet. */
  framework?: DesiredInstance['framework'];
  schedules: ScheduleStatus[];
  refusal: RefusalStatus & { commit: string };
  /**
   * Asked after the checkpoint is read, right before the write: this is not the instance's worker, so a
   * shard member may have let go of the instance meanwhile (its record went with it). Nothing is
   * written when it says no.
   */
  mayWrite?: () => boolean;
}

/**
 * A commit whose signature did not verify changes this instance: record the refusal in its status
 * (state REFUSED, the refused commit and why) without running anything. What was observed stays the
 * last verified desired state, so the same change signed later is still seen as a change. Resolves
 * to the status written, or undefined when `mayWrite` said no (nothing was written).
 */
export async function reportCommitRefusal(deps: InstanceRunDeps, input: CommitRefusalInput): Promise<InstanceStatus | undefined> {
  const stored = await deps.checkpoints.load(input.key);
  if (input.mayWrite?.() === false) return undefined;
  const reporter = reporterFor(deps, input, stored?.checkpoint);
  reporter.write({ ...reporter.transition('refused', 'REFUSED'), message: input.refusal.message }, { refusal: input.refusal });
  deps.kubeEvents?.record({ type: 'refused', instance: input.key, refusal: { code: input.refusal.code, message: input.refusal.message, at: input.refusal.at, details: { commit: input.refusal.commit } } });
  return reporter.last;
}

/** Deletes the status file of an instance that only a refused commit named (nothing ran for it). */
export function forgetRefusedInstance(deps: InstanceRunDeps, previous: InstanceStatus): void {
  const reporter = reporterFor(deps, { key: previous.instance, commit: previous.sourceCommit, previous, schedules: [] }, undefined);
  reporter.write({ ...reporter.transition('removed', 'REMOVED'), message: 'only a refused commit named this instance' }, { removed: true });
}

/**
 * What operators decided comes before the plan engine (docs/operations.md): a suspended instance runs
 * nothing (the outcome is returned); one no longer suspended says so once; the requests of the file
 * not carried out yet are (a pause or stop decides whether the plan resumes).
 */
async function operatorsFirst(deps: InstanceRunDeps, input: InstanceRunInput, at: { source: InstanceSource; requests: OperatorRequest[]; reporter: StatusReporter; client: KubeClient; emit: EventListener }): Promise<RunOutcome | undefined> {
  const { source, reporter } = at;
  if (input.desired === undefined) return undefined;
  if (source.instance.decl.suspend === true) return suspend(deps, input, reporter);
  if (input.previous?.suspended !== undefined) reporter.write({ ...reporter.transition('unsuspended', 'IN_PROGRESS'), message: `suspended since ${input.previous.suspended.since}` });
  if (at.requests.length === 0) return undefined;
  const carried = await carryOutRequests({
    store: deps.checkpoints, instance: input.key, requests: at.requests.map((r) => ({ ...r, via: 'git' as const })), plans: source.desired.plans,
    now: deps.now(), sourceCommit: input.commit, client: at.client, emit: at.emit, mask: (t) => maskSensitive(t, source.sensitiveValues),
  });
  if (carried.checkpoint) reporter.checkpoint = carried.checkpoint;
  return undefined;
}

/** The instance's desired state, and the requests of its request file (none for a removal or a scheduled run). */
async function loadSource(deps: InstanceRunDeps, input: InstanceRunInput, file: string): Promise<{ source: InstanceSource; requests: OperatorRequest[] }> {
  const values = deps.valuesFor?.(input.key);
  // Children of Instance tasks get status files of their own (child-status.ts).
  const options = { ...(values ? { values } : {}), observeChild: childStatusObserver(deps, input.commit), frameworks: deps.frameworks };
  if (input.desired === undefined) {
    // Removed: the framework and values it was applied with are in the commit it was applied at.
    const at = input.previous?.sourceCommit;
    if (at === undefined) throw new Error(`${file} was removed and no earlier commit of it is known`);
    return { source: await loadInstanceSource(await deps.store.at(at), file, deps.renderer, { removed: true }, options), requests: [] };
  }
  if (input.scheduled) {
    return { source: await loadInstanceSource(input.tree, file, deps.renderer, { request: { ...input.scheduled } }, options), requests: [] };
  }
  const requestText = input.desired.fingerprint.request ? await input.tree.readText(requestPath(input.key)) : undefined;
  const requests = requestText !== undefined ? parseRequestFile(requestText, requestPath(input.key)) : [];
  const request = triggerOf(requests);
  return { source: await loadInstanceSource(input.tree, file, deps.renderer, request ? { request } : {}, options), requests };
}

/**
 * A suspended instance (`suspend: true`): nothing is applied, repaired or scheduled. Recorded once
 * (`suspended`, since when and by which commit); later looks only record the desired state as seen.
 */
function suspend(deps: InstanceRunDeps, input: InstanceRunInput, reporter: StatusReporter): RunOutcome {
  const already = input.previous?.suspended;
  const since = already ?? { since: deps.now(), commit: input.commit };
  reporter.setSuspended(since);
  const message = `suspended since ${since.since}: nothing is applied or repaired, schedules hold`;
  if (already === undefined) {
    reporter.write({ ...reporter.transition('suspended', 'SUSPENDED'), message: `suspend: true in ${input.desired?.file ?? 'the instance file'}` });
    deps.kubeEvents?.recordInstance(input.key, 'Normal', 'Suspended', `${input.key.namespace}/${input.key.name}: ${message}`, []);
  } else if (input.previous?.sourceCommit !== input.commit || !sameObserved(input.previous.observed, input.desired?.fingerprint)) {
    reporter.write({ ...reporter.transition('observed', 'SUSPENDED'), message: 'suspended: the new desired state waits' });
  }
  return { kind: 'nothing', message };
}

function sameObserved(a: Fingerprint | undefined, b: Fingerprint | undefined): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});
}

/** The file of a removed instance at the commit it was last applied at (`.yaml`, else `.yml`). */
async function removedFile(deps: InstanceRunDeps, input: InstanceRunInput): Promise<string> {
  const base = `instances/${input.key.namespace}/${input.key.name}`;
  const at = input.previous?.sourceCommit;
  if (at !== undefined) {
    const tree = await deps.store.at(at).catch(() => undefined);
    for (const ext of ['.yaml', '.yml']) if ((await tree?.id(`${base}${ext}`)) !== undefined) return `${base}${ext}`;
  }
  return `${base}.yaml`;
}
