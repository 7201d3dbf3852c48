/**
 * Records v1 Events the way the kubelet and controllers do: one Event per (object, reason, message),
 * whose `count` and `lastTimestamp` grow when it repeats. Best effort: a failed write never fails the
 * reconcile that reported it.
 */
import type { KubeClient } from '../../../kube/client.js';
import type { KubeObject } from '../../../kube/object.js';
import type { Clock } from './clock.js';
import { kubeTime, nameOf } from './meta.js';

export type EventType = 'Normal' | 'Warning';

export class EventRecorder {
  private readonly seen = new Map<string, { name: string; count: number }>();
  private readonly pending = new Set<Promise<unknown>>();
  private serial = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly clock: Clock,
  ) {}

  emit(obj: KubeObject, type: EventType, reason: string, message: string, component: string): void {
    const namespace = obj.metadata.namespace ?? 'default';
    const key = `${obj.metadata.uid ?? nameOf(obj)}\u0000${reason}\u0000${message}`;
    const now = kubeTime(this.clock.now());
    const previous = this.seen.get(key);
    if (previous) {
      previous.count++;
      const patch = { count: previous.count, lastTimestamp: now };
      this.track(this.client.patch({ apiVersion: 'v1', kind: 'Event', namespace, name: previous.name }, patch, 'merge'));
      return;
    }
    const name = `${nameOf(obj)}.${(this.clock.now() * 1000 + (this.serial++ % 1000)).toString(16)}`;
    this.seen.set(key, { name, count: 1 });
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: { apiVersion: obj.apiVersion, kind: obj.kind, name: nameOf(obj), namespace: obj.metadata.namespace, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion },
      reason,
      message,
      type,
      source: { component },
      reportingComponent: component,
      reportingInstance: component,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    this.track(this.client.create(event));
  }

  /** Forgets repeat counts of an object that is gone. */
  forget(uid: string | undefined): void {
    if (uid === undefined) return;
    for (const key of this.seen.keys()) if (key.startsWith(`${uid}\u0000`)) this.seen.delete(key);
  }

  async flush(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private track(write: Promise<unknown>): void {
    const settled = write.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
  }
}
