/**
 * Kubernetes Events for what a plan does, so `kubectl describe` and `kubectl get events` tell the story
 * next to the objects themselves:
 * - on the instance's checkpoint ConfigMap (the instance's one object in the cluster, as an Argo CD
 *   Application or a Flux Kustomization carries its events): plan started, phase complete, step retried
 *   or failed, plan complete, failed, superseded, change refused;
 * - on every object a step applied: `Applied` (Normal), naming plan, phase and step;
 * - on the object a step failed on: `StepFailed` (Warning) with the reason.
 *
 * Recording is best effort and off the plan's path: events queue, a few are posted at a time, a full
 * queue drops (and counts) the newest, and a failure never touches the plan. Only an RBAC denial of
 * creating events (a 403 saying `cannot create resource "events"`) is logged once and turns recording
 * off; other 403s (a namespace being terminated, an exceeded quota) and a failed uid lookup concern one
 * event, not the process. Messages are masked with the instance's sensitive values before they leave
 * the process. An event whose namespace does not exist yet (a refused new instance) is recorded in
 * `default`, still naming its object.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import { refKey, type KubeObject, type ObjectRef } from '../kube/object.js';
import { maskSensitive } from '../render/mask.js';
import type { AppliedObject } from './batch.js';
import { checkpointRef } from './checkpoint-configmap.js';
import type { EngineEvent } from './events.js';

export const EVENT_COMPONENT = 'baton';
/** Events of cluster-scoped objects go to `default`, as client-go's recorder does. */
const CLUSTER_SCOPED_EVENT_NAMESPACE = 'default';
/** Kubernetes limits an Event message to 1 KiB (bytes) and the reporting instance to 128 characters. */
const MAX_MESSAGE_BYTES = 1024;
const MAX_REPORTING_INSTANCE = 128;
const WARN_INTERVAL_MS = 60_000;

export interface KubeEventRecorderOptions {
  /** Events waiting to be posted; beyond this the newest are dropped (default 1,000). */
  maxQueued?: number;
  /** Posts in flight at once (default 4). */
  concurrency?: number;
  log?: (level: 'warn' | 'error', message: string) => void;
  now?: () => Date;
  /** `reportingInstance` (default the host name). */
  reportingInstance?: string;
}

interface Pending {
  regarding: AppliedObject;
  type: 'Normal' | 'Warning';
  reason: string;
  action: string;
  message: string;
}

/** What records plans' Events: one recorder, or one per target cluster (src/clusters/). */
export type PlanEventSink = Pick<KubeEventRecorder, 'listener' | 'record' | 'recordInstance' | 'flush'>;

export class KubeEventRecorder {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  private disabled = false;
  private idle: (() => void)[] = [];
  private seq = 0;
  private lastWarnAt = -Infinity;
  private suppressedWarnings = 0;
  /** Uids looked up (mostly instances' checkpoint ConfigMaps, which get an event per transition). */
  private readonly uids = new Map<string, string>();
  /** Events dropped because the queue was full, or because posting failed. */
  dropped = 0;
  posted = 0;

  constructor(private readonly client: KubeClient, private readonly options: KubeEventRecorderOptions = {}) {}

  /** An engine event listener for one instance run; `sensitive` values are masked in every message. */
  listener(sensitive: () => readonly string[] = () => []): (event: EngineEvent) => void {
    return (event) => this.record(event, sensitive());
  }

  record(event: EngineEvent, sensitive: readonly string[] = []): void {
    // A new run may follow a removal and re-creation of the instance: its checkpoint ConfigMap (and the
    // objects) may have new uids, so look them up again.
    if (event.type === 'plan-started') this.uids.delete(refKey(checkpointRef(event.instance)));
    for (const e of eventsFor(event)) this.enqueue({ ...e, message: maskText(e.message, sensitive) });
  }

  /**
   * An event about the instance itself (on its checkpoint ConfigMap) that is not a plan's: drift found
   * or resolved, health changed, repairs held back by a fight (docs/drift.md).
   */
  recordInstance(instance: { namespace: string; name: string }, type: 'Normal' | 'Warning', reason: string, message: string, sensitive: readonly string[] = []): void {
    this.enqueue({ regarding: checkpointRef(instance), type, reason, action: reason, message: maskText(message, sensitive) });
  }

  /**
   * Resolves when every queued event has been posted (or dropped), or after `timeoutMs` (default 5 s):
   * then the events still queued are dropped, so an unreachable API server cannot hold up a shutdown.
   */
  flush(timeoutMs = 5000): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.dropped += this.queue.length;
        this.queue.length = 0;
        resolve();
      }, timeoutMs);
      timer.unref();
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private enqueue(p: Pending): void {
    if (this.disabled) return;
    if (this.queue.length >= (this.options.maxQueued ?? 1000)) {
      this.dropped++;
      return;
    }
    this.queue.push(p);
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < (this.options.concurrency ?? 4) && this.queue.length > 0) {
      const next = this.queue.shift() as Pending;
      this.inFlight++;
      void this.post(next).finally(() => {
        this.inFlight--;
        this.pump();
        if (this.queue.length === 0 && this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
      });
    }
  }

  private async post(p: Pending): Promise<void> {
    if (this.disabled) return;
    try {
      // `kubectl describe` finds events by the object's uid: look it up when the engine did not have it
      // (the instance's ConfigMap, a failed object). An object that does not exist gets none.
      const uid = p.regarding.uid ?? (await this.uidOf(p.regarding));
      const regarding = { ...p.regarding, ...(uid ? { uid } : {}) };
      try {
        await this.client.create(this.eventObject({ ...p, regarding }));
      } catch (err) {
        // The instance's namespace does not exist yet (a new instance whose change was refused: nothing
        // was applied, so nothing created it). The Event goes to `default`, still naming its object,
        // rather than being lost; Baton does not create a namespace for a change it refused.
        if (!(err instanceof KubeApiError) || err.status !== 404 || regarding.namespace === undefined || regarding.namespace === CLUSTER_SCOPED_EVENT_NAMESPACE) throw err;
        await this.client.create(this.eventObject({ ...p, regarding }, CLUSTER_SCOPED_EVENT_NAMESPACE));
      }
      this.posted++;
    } catch (err) {
      this.dropped++;
      if (isEventsRbacDenial(err)) {
        this.disabled = true;
        this.queue.length = 0;
        this.options.log?.('warn', `Kubernetes Events are not recorded: ${err.message} (grant create on events to record them)`);
        return;
      }
      // One warning a minute at most: a failing API server must not flood the log.
      const now = Date.now();
      if (now - this.lastWarnAt < WARN_INTERVAL_MS) {
        this.suppressedWarnings++;
        return;
      }
      const more = this.suppressedWarnings > 0 ? ` (and ${this.suppressedWarnings} more failures since the last warning)` : '';
      this.lastWarnAt = now;
      this.suppressedWarnings = 0;
      this.options.log?.('warn', `could not record a Kubernetes Event on ${p.regarding.kind} ${p.regarding.namespace ?? ''}/${p.regarding.name}: ${err instanceof Error ? err.message : String(err)}${more}`);
    }
  }

  private async uidOf(ref: ObjectRef): Promise<string | undefined> {
    const key = refKey(ref);
    const known = this.uids.get(key);
    if (known !== undefined) return known;
    let uid: string | undefined;
    try {
      uid = (await this.client.get(ref))?.metadata.uid;
    } catch {
      // No uid only means `kubectl describe` matches by name rather than uid: a lookup refused (no RBAC
      // on that object, which may be why its step failed) or failing must not cost the event. Not
      // cached, so a later event retries once the cause is gone.
      return undefined;
    }
    if (uid !== undefined) {
      if (this.uids.size >= 10_000) this.uids.clear();
      this.uids.set(key, uid);
    }
    return uid;
  }

  /** A core/v1 Event (what `kubectl describe` and `kubectl get events` read on every version). */
  private eventObject(p: Pending, inNamespace?: string): KubeObject {
    // One instant, in the two formats Events use: Time (seconds) and MicroTime.
    const iso = (this.options.now?.() ?? new Date()).toISOString();
    const now = iso.replace(/\.\d+Z$/, 'Z');
    const micro = iso.replace(/Z$/, '000Z');
    const namespace = inNamespace ?? p.regarding.namespace ?? CLUSTER_SCOPED_EVENT_NAMESPACE;
    // Unique like client-go's `<name>.<hex time>`, plus a counter and random bits for same-millisecond events.
    const suffix = `${Date.now().toString(16)}${(this.seq++ % 4096).toString(16).padStart(3, '0')}${randomBytes(2).toString('hex')}`;
    const involved: Record<string, string> = { apiVersion: p.regarding.apiVersion, kind: p.regarding.kind, name: p.regarding.name };
    if (p.regarding.namespace !== undefined) involved['namespace'] = p.regarding.namespace;
    if (p.regarding.uid !== undefined) involved['uid'] = p.regarding.uid;
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${p.regarding.name.slice(0, 200)}.${suffix}`, namespace },
      involvedObject: involved,
      type: p.type,
      reason: p.reason,
      action: p.action,
      message: truncateBytes(p.message, MAX_MESSAGE_BYTES),
      source: { component: EVENT_COMPONENT },
      reportingComponent: EVENT_COMPONENT,
      reportingInstance: (this.options.reportingInstance ?? hostname()).slice(0, MAX_REPORTING_INSTANCE),
      firstTimestamp: now,
      lastTimestamp: now,
      eventTime: micro,
      count: 1,
    };
  }
}

/**
 * A 403 from creating an Event because RBAC does not allow it: the one failure that will not go away
 * by itself, so recording stops. The API server also answers 403 when a namespace is being terminated
 * or a quota is exceeded; those concern one namespace for a while and only drop the event.
 */
function isEventsRbacDenial(err: unknown): err is KubeApiError {
  if (!(err instanceof KubeApiError) || err.status !== 403) return false;
  const message = err.message;
  if (/being terminated|exceeded quota/i.test(message)) return false;
  return /cannot create resource "events"/.test(message);
}

/** Cuts `text` to at most `max` UTF-8 bytes on a character boundary, marking the cut with `...`. */
export function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = '';
  let bytes = 3;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > max) break;
    out += ch;
    bytes += n;
  }
  return `${out}...`;
}

function maskText(text: string, sensitive: readonly string[]): string {
  return sensitive.length === 0 ? text : maskSensitive(text, sensitive);
}

type Described = Omit<Pending, 'message'> & { message: string };

/** The Kubernetes Events one engine event calls for (pure; exported for tests). */
export function eventsFor(event: EngineEvent): Described[] {
  const who = `${event.instance.namespace}/${event.instance.name}`;
  const instance: AppliedObject = checkpointRef(event.instance);
  const on = (type: Pending['type'], reason: string, action: string, message: string, regarding: AppliedObject = instance): Described => ({ regarding, type, reason, action, message });
  switch (event.type) {
    case 'plan-started':
      return [on('Normal', 'PlanStarted', 'Plan', `${who}: plan ${event.plan} ${event.resumed ? 'resumed' : 'started'} (${event.run.reason})`)];
    case 'phase-complete':
      return [on('Normal', 'PhaseComplete', 'Plan', `${who}: plan ${event.plan} phase ${event.phase} complete`)];
    case 'step-error':
      return [on('Warning', 'StepRetrying', 'Apply', `${who}: ${event.plan}/${event.phase}/${event.step} attempt ${event.attempt} failed, retrying in ${Math.round(event.retryInMs / 100) / 10}s: ${event.error.message}`)];
    case 'step-complete':
      return event.objects.map((o) => on('Normal', 'Applied', 'Apply', `applied by Baton: ${who} plan ${event.plan}, phase ${event.phase}, step ${event.step}`, o));
    case 'step-failed': {
      const text = `${who}: ${event.plan}/${event.phase}/${event.step} failed: ${event.error.code}: ${event.error.message}`;
      return [on('Warning', 'StepFailed', 'Apply', text), ...(event.object ? [on('Warning', 'StepFailed', 'Apply', text, event.object)] : [])];
    }
    case 'plan-complete':
      return [on('Normal', 'PlanComplete', 'Plan', `${who}: plan ${event.plan} complete`)];
    case 'plan-failed':
      return [on('Warning', 'PlanFailed', 'Plan', `${who}: plan ${event.plan} ${event.run.state.status}: ${event.error.message}`)];
    case 'plan-superseded':
      return [on('Normal', 'PlanSuperseded', 'Plan', `${who}: plan ${event.plan} superseded by a newer desired state`)];
    case 'refused':
      return [on('Warning', 'ChangeRefused', 'Plan', `${who}: change refused: ${event.refusal.message}`)];
    case 'plan-waiting':
      return [on('Normal', 'PlanWaiting', 'Plan', `${who}: plan ${event.plan} waits for \`baton plan continue ${who} --plan ${event.plan}\` ${event.waits.map((w) => (w.phase !== undefined ? `after step ${w.after} of phase ${w.phase}` : `after phase ${w.after}`)).join(' and ')}`)];
    case 'request': {
      const r = event.record;
      const by = `${r.by ? ` by ${r.by}` : ''}${r.reason ? ` (${r.reason})` : ''}`;
      return [r.result === 'done'
        ? on('Normal', requestReason(r.event), 'Control', `${who}: ${r.message}${by} [request ${r.id}]`)
        : on('Warning', 'RequestRefused', 'Control', `${who}: ${r.action} refused (${r.code ?? 'REFUSED'}): ${r.message}${by} [request ${r.id}]`)];
    }
    case 'phase-started':
    case 'phase-failed':
    case 'step-started':
    case 'step-waiting':
    case 'prune':
    case 'checkpoint':
      return [];
  }
}

/** `plan-paused` -> `PlanPaused`, `step-force-completed` -> `StepForceCompleted` (the Event reason). */
function requestReason(event: string): string {
  return event.split('-').map((w) => (w.length > 0 ? w[0]!.toUpperCase() + w.slice(1) : w)).join('');
}
