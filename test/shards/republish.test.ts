/**
 * A member whose publication of a new view failed (the write answered with an error, not applied)
 * publishes it again before it acts under it. Before, its next look found nothing new to adopt and
 * took the others' views at once: it acted under members its lease did not show, so the others judged
 * its claims by its former view (safe only while every other member's publication is current).
 * Deterministic: the members' monotonic clock stands still (no lease runs out), and the member's
 * Lease writes after the failed one wait until the test lets them through.
 */
import { describe, expect, it } from 'vitest';
import type { KubeClient } from '../../src/kube/client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { ShardMember, type ShardMemberOptions } from '../../src/shards/index.js';
import { VIEW_ANNOTATION } from '../../src/shards/member-lease.js';
import { clusterForFile } from '../helpers/engine-harness.js';
import { until } from '../helpers/wait.js';

const LEASE = { leaseDurationMs: 1000, renewDeadlineMs: 700, retryPeriodMs: 100 } as const;
const CONFIG = { repo: 'https://git.example/ops.git', branch: 'main' };
const keys = Array.from({ length: 200 }, (_, i) => `ns-${i % 5}/app-${i}`);

/** `client` whose first update of lease `name` publishing two members or more fails; its later updates wait for `open`. */
function failingPublication(client: KubeClient, name: () => string): { client: KubeClient; failed: () => boolean; open: () => void } {
  let failed = false;
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => { open = resolve; });
  const proxy = new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const obj = args[0] as KubeObject | undefined;
        if (prop === 'update' && obj?.metadata.name === name()) {
          if (failed) await gate;
          else if ((obj.metadata.annotations?.[VIEW_ANNOTATION] ?? '').includes(',')) {
            failed = true;
            throw new Error('update lease: the server answered 500 (simulated; not applied)');
          }
        }
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  return { client: proxy, failed: () => failed, open };
}

describe('a shard member whose view publication failed', () => {
  const world = clusterForFile();

  it('GIVEN the write publishing a new view failed THEN the member acts under it only after its lease shows it (it acted at once before)', async () => {
    const logs: string[] = [];
    const options = (identity: string, client: KubeClient): ShardMemberOptions => ({
      client, shardSet: 'republish', namespace: 'baton-system', identity, config: CONFIG, ...LEASE,
      // Time stands still: no lease or fence runs out however long the held writes wait.
      monotonic: () => 0, log: (_level, message) => { logs.push(`${identity}: ${message}`); },
    });
    let aLease = '';
    const faulty = failingPublication(world.client, () => aLease);
    const a = new ShardMember(options('a', faulty.client));
    aLease = a.lease.name;
    const b = new ShardMember(options('b', world.client));
    const aborts = [new AbortController(), new AbortController()];
    const forever = (signal: AbortSignal): Promise<void> => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    const runs = [a.run(forever, aborts[0]?.signal)];
    const published = async (): Promise<string | undefined> =>
      (await world.client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: a.lease.name, namespace: 'baton-system' }))?.metadata.annotations?.[VIEW_ANNOTATION];
    try {
      // a alone first (its join publishes one member), then b joins.
      await until(() => keys.every((k) => a.mayAct(k)), 60_000, 'a alone');
      runs.push(b.run(forever, aborts[1]?.signal));
      // a adopted both members, its publication failed, and then either it acts (before) or publishes again (now).
      await until(() => faulty.failed() && a.members.length === 2 && (keys.some((k) => a.mayAct(k)) || logs.some((l) => l.includes('publishing them again'))), 60_000, 'a after its failed publication');
      expect(await published()).toBe(a.id);
      expect(keys.filter((k) => a.mayAct(k))).toEqual([]);
      faulty.open();
      await until(() => keys.every((k) => [a, b].filter((x) => x.mayAct(k)).length === 1), 60_000, 'a and b sharing every instance');
      expect(await published()).toBe([a.id, b.id].sort().join(','));
    } finally {
      faulty.open();
      for (const abort of aborts) abort.abort();
      await Promise.all(runs);
    }
  });
});
