/**
 * Issue 20 (the simulated API server's CPU per instance): every watch an agent opens resumes from the
 * version of the list before it, and the replay of the event window used to look at all of it (10,000
 * events by default) for each watch. It now finds the first newer event by binary search; what it
 * delivers is unchanged, also after the ring wrapped around.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/object.js';
import { WatchHub, type StoredEvent, type Watcher } from '../../../src/cluster/store/watch.js';
import type { StoreWatchEvent } from '../../../src/cluster/store/types.js';

/** An event whose `rv` reads are counted: how much of the window a replay looked at. */
function counted(rv: number, key: string, reads: { n: number }): StoredEvent {
  const object: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${rv}`, namespace: 'ns', resourceVersion: String(rv) } };
  return { get rv() { reads.n++; return rv; }, key, type: 'ADDED', object };
}

function watcher(key: string, into: StoreWatchEvent[]): Watcher {
  return { key, namespace: undefined, matches: () => true, present: (o) => o, emit: (ev) => into.push(ev), bookmark: undefined };
}

const names = (events: StoreWatchEvent[]): string[] => events.map((e) => (e.object as KubeObject).metadata.name ?? '');

describe('the watch window replay', () => {
  it('GIVEN a full window of 1,000 events WHEN a watch resumes from 5 events ago THEN it looks at a few events, not the whole window', () => {
    const reads = { n: 0 };
    const hub = new WatchHub(1000);
    // 1,500 events through a window of 1,000: the ring has wrapped.
    for (let rv = 1; rv <= 1500; rv++) hub.publish(counted(rv, 'core/configmaps', reads));
    reads.n = 0;
    const got: StoreWatchEvent[] = [];
    hub.replay(watcher('core/configmaps', got), 1495);
    expect(names(got)).toEqual(['cm-1496', 'cm-1497', 'cm-1498', 'cm-1499', 'cm-1500']);
    // Before: every event of the window (1,000 reads).
    expect(reads.n).toBeLessThan(40);
  });

  it('GIVEN a wrapped window of two kinds WHEN watches resume from any version in it THEN each gets exactly the newer events of its kind, and an expired version is 410 Gone', () => {
    const reads = { n: 0 };
    const hub = new WatchHub(7);
    for (let rv = 1; rv <= 20; rv++) hub.publish(counted(rv, rv % 2 === 0 ? 'core/configmaps' : 'apps/deployments', reads));
    // The window holds 14..20.
    for (let from = 13; from <= 20; from++) {
      const got: StoreWatchEvent[] = [];
      hub.replay(watcher('core/configmaps', got), from);
      const expected = Array.from({ length: 20 - from }, (_, i) => from + 1 + i).filter((rv) => rv % 2 === 0).map((rv) => `cm-${rv}`);
      expect(names(got)).toEqual(expected);
    }
    expect(() => hub.replay(watcher('core/configmaps', []), 12)).toThrow(/too old resource version/);
  });
});
