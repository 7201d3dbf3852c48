/**
 * Requests that arrive while an instance's plan runs (issue #13, "nothing already running is
 * disturbed"). A new request file changes the instance's desired state, and a new desired state
 * supersedes the running plan after its running step. That is right for a new trigger and for a
 * request that acts on the plan (pause, stop, force-complete...), and wrong for one that is refused
 * (an unknown plan, a resume of a plan not paused) or carried out elsewhere (a pod action): those
 * are decided beside the running plan, and the plan goes on as if nothing had been committed.
 *
 * The lane is the running worker's mailbox: the agent saves the refusals in the checkpoint (the
 * worker's own checkpoint writes merge them) and hands them over here; the worker's status reporter
 * records each in Git once, and from then on records the new desired state as seen.
 */
import type { Checkpoint, CheckpointStore } from '../plans/checkpoint.js';
import { withRequestsOf } from '../plans/request-merge.js';
import { pendingRequests, refuseBeside } from '../control/index.js';
import { parseRequestFile, requestPath, triggerOf, type OperatorRequest } from './request-file.js';
import type { CommitTree } from '../git/tree.js';
import type { FrameworkCache } from '../render/index.js';
import { loadFramework } from '../render/repository.js';
import type { DesiredInstance } from './scan.js';
import type { Fingerprint } from './status-file.js';

export class RequestLane {
  private seen: Fingerprint | undefined;
  private records: Checkpoint | undefined;
  private sink: ((records: Checkpoint) => void) | undefined;
  private onRequests: (() => void) | undefined;
  private latest: OperatorRequest[] | undefined;
  private closed = false;

  /** The requests of the newest request file decided beside the worker (undefined: none arrived during it). */
  get requests(): readonly OperatorRequest[] | undefined {
    return this.latest;
  }

  /** The desired state whose requests were all decided beside the plan (what the worker records as seen). */
  get observed(): Fingerprint | undefined {
    return this.seen;
  }

  /** The worker's reporter takes request records from here (also the ones delivered before it attached). */
  attach(sink: (records: Checkpoint) => void, onRequests?: () => void): void {
    this.sink = sink;
    this.onRequests = onRequests;
    if (this.records !== undefined) sink(this.records);
  }

  /**
   * The worker is done: nothing more is recorded through it (records saved later reach Git through
   * the next run's reporter, which reads them from the checkpoint).
   */
  close(): void {
    this.closed = true;
    this.sink = undefined;
    this.onRequests = undefined;
  }

  /** Hands the worker the checkpoint holding the new records, and the desired state they decide. */
  deliver(records: Checkpoint | undefined, observed: Fingerprint, requests?: OperatorRequest[]): void {
    if (this.closed) return;
    this.seen = observed;
    if (requests !== undefined) this.latest = requests;
    if (records !== undefined) {
      this.records = this.records === undefined ? records : withRequestsOf(records, this.records);
      this.sink?.(this.records);
    }
    if (requests !== undefined) this.onRequests?.();
  }
}

/** Whether two fingerprints differ only in the request file. */
export function onlyRequestChanged(running: Fingerprint | undefined, next: Fingerprint): boolean {
  return running !== undefined && running.instance === next.instance && running.framework === next.framework && running.values === next.values && running.request !== next.request;
}

export type BesideVerdict =
  /** Decided beside the running plan: it goes on; `records` (if any) were saved. */
  | { kind: 'beside'; records: Checkpoint | undefined; requests?: OperatorRequest[] }
  /** A new trigger, or a request that acts on the running plan: the plan makes way after its running step. */
  | { kind: 'supersede'; why: string };

/**
 * Decides the requests of `desired`'s request file while the instance's plan runs. A request file
 * that cannot be read or parsed is the plan run's to refuse (as bad content), so it supersedes.
 */
export async function decideBeside(input: { store: CheckpointStore; tree: CommitTree; desired: DesiredInstance; commit: string; now: string; frameworks?: FrameworkCache }): Promise<BesideVerdict> {
  const { key } = input.desired;
  const text = await input.tree.readText(requestPath(key));
  if (text === undefined) return { kind: 'beside', records: undefined };
  let requests;
  try {
    requests = parseRequestFile(text, requestPath(key));
  } catch {
    return { kind: 'supersede', why: 'the request file does not parse' };
  }
  const stored = await input.store.load(key);
  if (stored === undefined) return { kind: 'supersede', why: 'no checkpoint yet' };
  const trigger = triggerOf(requests);
  if (trigger !== undefined && !stored.checkpoint.handledRequests.includes(trigger.id)) return { kind: 'supersede', why: `plan ${trigger.plan} requested` };
  const controls = requests.map((r) => ({ ...r, via: 'git' as const }));
  if (pendingRequests(controls, stored.checkpoint).length === 0) return { kind: 'beside', records: undefined, requests };
  const plans = [stored.checkpoint.active?.plan, ...stored.checkpoint.history.map((r) => r.plan)].filter((p): p is string => p !== undefined);
  const result = await refuseBeside({ store: input.store, instance: key, requests: controls, plans: await definedPlans(input, plans), now: input.now, sourceCommit: input.commit });
  if (result.kind === 'acts') return { kind: 'supersede', why: `${result.request.action} request ${result.request.id}` };
  return { kind: 'beside', records: result.kind === 'refused' ? result.checkpoint : undefined, requests };
}

/** The plans the desired framework version defines (for PLAN_UNKNOWN); falls back to the plans that ran. */
async function definedPlans(input: { tree: CommitTree; desired: DesiredInstance; frameworks?: FrameworkCache }, ran: readonly string[]): Promise<string[]> {
  const fw = input.desired.framework;
  if (fw === undefined) return [...new Set(ran)];
  const loaded = input.frameworks
    ? await input.frameworks.load(input.tree, fw.name, fw.version, input.desired.fingerprint.framework)
    : await loadFramework(input.tree, fw.name, fw.version);
  return loaded.ok ? Object.keys(loaded.value.decl.plans) : [...new Set(ran)];
}
