/**
 * Issue 20 (agent CPU per instance): every readiness wait of a workload opened a watch of its
 * namespace's pods at once and tore it down when the workload was ready, most often at the next event.
 * Pods never end a wait (they explain it, or fail it), so `contextAfterMs` follows them only once the
 * wait has lasted that long. GIVEN a wait with pod context after 1000 ms WHEN the object is ready before
 * THEN no pod watch is opened; WHEN it still waits at 1000 ms THEN the pods are watched from the given
 * resourceVersion (nothing missed, no list) and can fail the wait.
 */
import { describe, expect, it } from 'vitest';
import type { KubeClient, WatchEvent, WatchOptions } from '../../src/kube/client.js';
import type { KubeObject } from '../../src/kube/object.js';
import type { Clock } from '../../src/plans/clock.js';
import { waitFor, type Observed, type WaitVerdict } from '../../src/plans/watch-wait.js';
import { until } from '../helpers/wait.js';

interface OpenWatch { kind: string; resourceVersion: string | undefined; push(ev: WatchEvent): void }

/** Watches that tests feed by hand; lists are counted (none expected). */
function fakeClient(): { client: KubeClient; watches: OpenWatch[]; lists: string[] } {
  const watches: OpenWatch[] = [];
  const lists: string[] = [];
  const client = {
    list: async (_apiVersion: string, kind: string) => {
      lists.push(kind);
      return { items: [], resourceVersion: '1' };
    },
    async *watch(_apiVersion: string, kind: string, _namespace: string | undefined, options: WatchOptions): AsyncGenerator<WatchEvent> {
      const queue: WatchEvent[] = [];
      let wake: (() => void) | undefined;
      watches.push({ kind, resourceVersion: options.resourceVersion, push: (ev) => { queue.push(ev); wake?.(); } });
      const aborted = new Promise<void>((resolve) => options.signal?.addEventListener('abort', () => resolve(), { once: true }));
      while (options.signal?.aborted !== true) {
        const ev = queue.shift();
        if (ev !== undefined) {
          yield ev;
          continue;
        }
        await Promise.race([new Promise<void>((resolve) => { wake = resolve; }), aborted]);
      }
    },
  };
  return { client: client as unknown as KubeClient, watches, lists };
}

/** Time moves only when the test says so. */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = 0;
  const sleepers: { at: number; resolve: () => void }[] = [];
  return {
    now: () => now,
    sleep: (ms, signal) => new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) return reject(new Error('aborted'));
      sleepers.push({ at: now + ms, resolve });
      signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    }),
    advance(ms) {
      now += ms;
      for (const s of sleepers.splice(0)) {
        if (s.at <= now) s.resolve();
        else sleepers.push(s);
      }
    },
  };
}

const deployment = (ready: boolean): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', resourceVersion: '10' }, status: { ready } });
const pod = (reason: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'ns', resourceVersion: '12' }, status: { reason } });

function evaluate(observed: Observed, pods: readonly KubeObject[]): WaitVerdict {
  const failing = pods.find((p) => (p['status'] as { reason?: string }).reason === 'InvalidImageName');
  if (failing) return { kind: 'failed', object: 'Deployment ns/web', reason: 'InvalidImageName', message: 'pod web-1' };
  const d = [...observed.values()][0];
  return (d?.['status'] as { ready?: boolean } | undefined)?.ready === true ? { kind: 'done' } : { kind: 'waiting', object: 'Deployment ns/web', message: 'not ready' };
}

function start(client: KubeClient, clock: Clock): Promise<Exclude<WaitVerdict, { kind: 'waiting' }>> {
  return waitFor({
    client, clock, evaluate, signal: new AbortController().signal, isTransient: () => false, tickMs: 60_000,
    refs: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns', name: 'web' }],
    known: [deployment(false)],
    context: [{ apiVersion: 'v1', kind: 'Pod', namespace: 'ns', resourceVersion: '10' }],
    contextAfterMs: 1000,
  });
}

describe('a readiness wait with pod context after a delay', () => {
  it('GIVEN the workload is ready before the delay WHEN the wait ends THEN no pod watch was opened', async () => {
    const { client, watches, lists } = fakeClient();
    const clock = manualClock();
    const verdict = start(client, clock);
    await until(() => watches.length >= 1, 5000);
    clock.advance(999);
    watches[0]?.push({ type: 'MODIFIED', object: deployment(true) });
    expect(await verdict).toEqual({ kind: 'done' });
    clock.advance(10_000);
    expect(watches.map((w) => w.kind)).toEqual(['Deployment']);
    expect(lists).toEqual([]);
  });

  it('GIVEN the workload still waits at the delay WHEN it has lasted that long THEN its pods are watched from the resourceVersion given, and fail it', async () => {
    const { client, watches, lists } = fakeClient();
    const clock = manualClock();
    const verdict = start(client, clock);
    await until(() => watches.length >= 1, 5000);
    clock.advance(1000);
    await until(() => watches.length === 2, 5000);
    expect(watches[1]).toMatchObject({ kind: 'Pod', resourceVersion: '10' });
    watches[1]?.push({ type: 'ADDED', object: pod('InvalidImageName') });
    expect(await verdict).toMatchObject({ kind: 'failed', reason: 'InvalidImageName' });
    expect(lists).toEqual([]);
  });
});
