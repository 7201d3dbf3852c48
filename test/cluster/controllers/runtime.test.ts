import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/cluster/controllers/runtime/clock.js';
import { Informer } from '../../../src/cluster/controllers/runtime/informer.js';
import { WorkQueue } from '../../../src/cluster/controllers/runtime/queue.js';
import { realClock } from '../../../src/cluster/controllers/runtime/clock.js';
import { FakeKube } from './fake-kube.js';
import { eventually } from './harness.js';

/** A clock that moves only when told. */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return { cancel: () => void (timers = timers.filter((t) => t !== timer)) };
    },
    advance(ms) {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.fn();
    },
  };
}

describe('the work queue', () => {
  it('GIVEN a key added twice THEN it is processed once', async () => {
    const q = new WorkQueue(realClock);
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.length).toBe(2);
    expect(await q.next()).toBe('a');
    expect(await q.next()).toBe('b');
  });

  it('GIVEN a key added while it is processed THEN it is processed again afterwards, not in parallel', async () => {
    const q = new WorkQueue(realClock);
    q.add('a');
    const key = await q.next();
    q.add('a');
    expect(q.length).toBe(0);
    q.done(key!);
    expect(q.length).toBe(1);
  });

  it('GIVEN addAfter THEN the key appears only once the delay has passed, and the earliest delay wins', () => {
    const clock = manualClock();
    const q = new WorkQueue(clock);
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    q.addAfter('a', 500);
    clock.advance(49);
    expect(q.length).toBe(0);
    clock.advance(1);
    expect(q.length).toBe(1);
    clock.advance(1000);
    expect(q.length).toBe(1);
  });

  it('GIVEN a closed queue THEN waiting workers are released', async () => {
    const q = new WorkQueue(realClock);
    const waiting = q.next();
    q.close();
    expect(await waiting).toBeUndefined();
  });
});

describe('the informer', () => {
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });

  async function started(kube: FakeKube, events: string[]): Promise<Informer> {
    const informer = new Informer({ client: kube, apiVersion: 'v1', kind: 'ConfigMap', clock: realClock, onEvent: (type, obj) => events.push(`${type} ${obj.metadata.name}`) });
    informer.start();
    await informer.synced;
    return informer;
  }

  it('GIVEN existing objects THEN the first list reports them as added', async () => {
    const kube = new FakeKube();
    await kube.create(cm('a'));
    const events: string[] = [];
    const informer = await started(kube, events);
    expect(events).toEqual(['ADDED a']);
    expect(informer.get('default/a')?.apiVersion).toBe('v1');
    await informer.stop();
  });

  it('GIVEN objects in several namespaces THEN a namespace lists its own, in cache order, through writes, write-throughs and deletions', async () => {
    const kube = new FakeKube();
    const at = (name: string, namespace: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });
    for (const [name, ns] of [['a', 'one'], ['b', 'two'], ['c', 'one'], ['d', 'two']] as const) await kube.create(at(name, ns));
    const events: string[] = [];
    const informer = await started(kube, events);
    const names = (ns?: string): string[] => informer.list(ns).map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`);
    expect(names('one')).toEqual(['one/a', 'one/c']);
    expect(names()).toEqual(['one/a', 'two/b', 'one/c', 'two/d']);
    await kube.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'one', name: 'a' });
    await kube.create(at('a', 'one'));
    await kube.create(at('e', 'three'));
    await eventually(() => events.filter((e) => e === 'ADDED a').length === 2 && events.includes('ADDED e'), 2000, 'a again and e');
    expect(names('one')).toEqual(['one/c', 'one/a']);
    expect(names('three')).toEqual(['three/e']);
    const c = informer.get('one/c');
    if (!c) throw new Error('one/c not cached');
    informer.forget(c);
    expect(names('one')).toEqual(['one/a']);
    informer.remember({ ...c, metadata: { ...c.metadata, resourceVersion: '999' } });
    expect(names('one')).toEqual(['one/a', 'one/c']);
    expect(names('nowhere')).toEqual([]);
    expect(names('')).toEqual([]);
    await informer.stop();
  });

  it('GIVEN the server closes the watch THEN it resumes from the last version without listing again', async () => {
    const kube = new FakeKube();
    const events: string[] = [];
    const informer = await started(kube, events);
    await kube.create(cm('a'));
    await eventually(() => events.includes('ADDED a'), 2000, 'a');
    kube.dropWatches();
    await kube.create(cm('b'));
    await eventually(() => events.includes('ADDED b'), 2000, 'b');
    expect(informer.stats.lists).toBe(1);
    expect(informer.stats.watches).toBeGreaterThanOrEqual(2);
    await informer.stop();
  });

  it('GIVEN the version is too old (410) THEN it lists again and reports what vanished meanwhile as deleted', async () => {
    const kube = new FakeKube();
    await kube.create(cm('a'));
    await kube.create(cm('b'));
    const events: string[] = [];
    const informer = await started(kube, events);
    await informer.stop();
    // While nobody watches: b goes, c comes, history is compacted.
    await kube.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'b' });
    await kube.create(cm('c'));
    kube.compact();
    const resumed = new Informer({ client: kube, apiVersion: 'v1', kind: 'ConfigMap', clock: realClock, onEvent: (type, obj) => events.push(`${type} ${obj.metadata.name}`) });
    // Seed it with the old cache and version, as a long-running informer would have them.
    for (const obj of informer.list()) resumed.remember(obj);
    (resumed as unknown as { resourceVersion: string }).resourceVersion = '2';
    events.length = 0;
    resumed.start();
    await eventually(() => events.includes('DELETED b'), 2000, 'relist');
    expect(events.sort()).toEqual(['ADDED c', 'DELETED b', 'MODIFIED a']);
    expect(resumed.stats.lists).toBe(1);
    expect(resumed.list().map((o) => o.metadata.name).sort()).toEqual(['a', 'c']);
    await resumed.stop();
  });
});
