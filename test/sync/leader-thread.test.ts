/**
 * The leader Lease acquired and renewed from a thread of its own (ThreadedLeaderElector, as `baton
 * agent` runs it), against the simulated API server in a process of its own over real HTTP: a leader
 * whose event loop is busy keeps leading; one whose loop is stuck past the liveness bound stops
 * leading the moment it runs again, and a waiting agent takes over; a graceful end releases the Lease.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { ThreadedLeaderElector } from '../../src/shards/lease-renewer/index.js';
import { runAsLeader, type LeaderResult } from '../../src/sync/leader.js';
import type { LeaseFence } from '../../src/fencing/index.js';
import { startClusterProcess, type ClusterProcess } from '../helpers/cluster-process.js';
import { until } from '../helpers/wait.js';

const LEASE = { leaseDurationMs: 3000, renewDeadlineMs: 1500, retryPeriodMs: 400 } as const;
const LIVENESS_MS = 2500;
/** Past the renew deadline and within the lease duration. */
const BUSY_MS = 2000;
/**
 * The liveness bound of the leader blocked for BUSY_MS: well past it. Blocked for BUSY_MS, the main
 * thread is silent for BUSY_MS plus up to a heartbeat interval (500 ms) plus however late its timer
 * runs: with the bound at 2500 ms that left no room, and at load 30 the thread gave the Lease up
 * ("did not check in for 2513 ms").
 */
const BUSY_LIVENESS_MS = 8000;
/** Past the liveness bound and the retry period after it. */
const STUCK_MS = LIVENESS_MS + 3 * LEASE.retryPeriodMs;

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* blocked */ }
}

describe('a leader lease renewed from its own thread', () => {
  let cluster: ClusterProcess;
  let client: HttpKubeClient;
  let n = 0;

  beforeAll(async () => {
    cluster = await startClusterProcess();
    client = await createKubeClient({ url: cluster.url });
  });
  afterAll(async () => {
    client.close();
    await cluster.stop();
  });

  /** Runs a leader whose work lasts until its signal aborts or `stop` is called. */
  function leader(name: string, identity: string, logs: string[], livenessMs = LIVENESS_MS): { result: Promise<LeaderResult>; fence: () => LeaseFence | undefined; stop: AbortController; elector: ThreadedLeaderElector } {
    const elector = new ThreadedLeaderElector({ name, namespace: 'baton-system', identity }, { client: { url: cluster.url }, ...LEASE, livenessMs, log: (level, m) => logs.push(`${level} ${m}`) });
    elector.fence.onLost((why) => logs.push(`fence lost: ${why}`));
    const stop = new AbortController();
    let held: LeaseFence | undefined;
    const result = runAsLeader({ client, name, namespace: 'baton-system', identity, ...LEASE, fence: elector.fence, elector }, async (signal, fence) => {
      held = fence;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    }, stop.signal).finally(() => elector.close());
    return { result, fence: () => held, stop, elector };
  }
  const leaseOf = (name: string): Promise<KubeObject | undefined> => client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'baton-system', name });
  const holderOf = async (name: string): Promise<string | undefined> => ((await leaseOf(name))?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;

  it('GIVEN a leader whose event loop is blocked past the renew deadline but within the liveness bound THEN it keeps leading', async () => {
    const name = `lead-${++n}`;
    const logs: string[] = [];
    const a = leader(name, 'a', logs, BUSY_LIVENESS_MS);
    await until(() => a.fence()?.valid === true, 60_000, 'a leads').catch((err: Error) => { throw new Error(`${err.message}; the leader's log:\n${logs.join('\n')}`); });
    busy(BUSY_MS);
    expect(a.fence()?.valid, logs.join('\n')).toBe(true);
    expect(await holderOf(name)).toBe('a');
    expect(await Promise.race([a.result, Promise.resolve('leading')]), logs.join('\n')).toBe('leading');
    a.stop.abort();
    expect((await a.result).kind, logs.join('\n')).toBe('aborted');
    // A graceful end gives the Lease up (empty holder) for a waiting agent.
    expect(await holderOf(name)).toBe('');
  });

  it('GIVEN a leader whose event loop is stuck past the liveness bound THEN it stops leading the moment it runs again, and a waiting agent takes over', async () => {
    const name = `lead-${++n}`;
    const logs: string[] = [];
    const a = leader(name, 'a', logs);
    await until(() => a.fence()?.valid === true, 60_000, 'a leads').catch((err: Error) => { throw new Error(`${err.message}; the leader's log:\n${logs.join('\n')}`); });
    const b = leader(name, 'b', []);
    busy(STUCK_MS);
    expect(a.fence()?.valid, logs.join('\n')).toBe(false);
    expect(() => a.fence()?.check('apply a Deployment')).toThrow(/main thread did not check in/);
    expect((await a.result).kind).toBe('lost');
    await until(async () => (await holderOf(name)) === 'b', 30_000, 'b takes over');
    b.stop.abort();
    await b.result;
  });

  // A graceful end: the thread gives the Lease up, replies and exits at once. When the main loop hears
  // of both in one turn, Node's Worker drains the reply and emits 'exit' synchronously, before the
  // release's awaits resume; here that order is made certain by emitting 'exit' right after the reply.
  it('GIVEN a graceful end WHEN the thread\'s exit is heard together with its reply THEN the Lease is released, not lost', async () => {
    const name = `lead-${++n}`;
    const logs: string[] = [];
    const a = leader(name, 'a', logs);
    await until(() => a.fence()?.valid === true, 60_000, 'a leads').catch((err: Error) => { throw new Error(`${err.message}; the leader's log:\n${logs.join('\n')}`); });
    const worker = a.elector.worker;
    expect(worker).toBeDefined();
    let replies = 0;
    worker?.on('message', (m: { type?: string }) => { if (m.type === 'reply' && ++replies === 1) worker.emit('exit', 0); });
    a.stop.abort();
    expect((await a.result).kind, logs.join('\n')).toBe('aborted');
    expect(logs.join('\n')).not.toMatch(/ended unexpectedly/);
    expect(await holderOf(name)).toBe('');
  });
});
