import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { isRecord } from '../../src/kube/object.js';
import {
  LeaderElectionError, LeaderElector, formatMicroTime, leaseNameFor, parseMicroTime, runAsLeader, type LeaderClock, type LeaderOptions,
} from '../../src/sync/leader.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';

// Short but real durations: end-to-end takeovers against the simulated API server.
const FAST = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 } as const;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(20);
  }
  return Date.now() - start;
}

describe('lease names and MicroTime', () => {
  it.each([
    ['the same repository and branch share one lease', 'https://git.example/ops.git', 'main', 'https://git.example/ops.git', 'main', true],
    ['another branch gets its own lease', 'https://git.example/ops.git', 'main', 'https://git.example/ops.git', 'staging', false],
    ['another repository gets its own lease', 'https://git.example/ops.git', 'main', 'https://git.example/dev.git', 'main', false],
  ])('%s', (_name, repoA, branchA, repoB, branchB, same) => {
    const a = leaseNameFor(repoA, branchA);
    expect(a).toMatch(/^baton-agent-[0-9a-f]{12}$/);
    expect(a === leaseNameFor(repoB, branchB)).toBe(same);
  });

  it('GIVEN a time WHEN formatted THEN it has exactly 6 fractional digits and parses back', () => {
    const ms = Date.UTC(2026, 0, 1, 0, 0, 0, 123);
    expect(formatMicroTime(ms)).toBe('2026-01-01T00:00:00.123000Z');
    expect(parseMicroTime(formatMicroTime(ms))).toBe(ms);
    expect(parseMicroTime('not a time')).toBeUndefined();
  });

  it('GIVEN a renew deadline not shorter than the lease WHEN constructing THEN a clear error', () => {
    expect(() => new LeaderElector({ client: {} as LeaderOptions['client'], name: 'x', leaseDurationMs: 1000, renewDeadlineMs: 1000 })).toThrow(LeaderElectionError);
  });
});

describe('leader election against the simulated cluster', () => {
  let cluster: TestCluster;
  let client: HttpKubeClient;
  let n = 0;
  const leaseName = (): string => `baton-agent-test${++n}`;
  const elector = (name: string, identity: string, extra: Partial<LeaderOptions> = {}): LeaderElector =>
    new LeaderElector({ client, name, identity, ...FAST, ...extra });
  const leaseSpec = async (name: string): Promise<Record<string, unknown>> => {
    const lease = await client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name, namespace: 'baton-system' });
    return isRecord(lease?.spec) ? lease.spec : {};
  };

  beforeAll(async () => {
    cluster = await startTestCluster();
    client = await createKubeClient({ url: cluster.url });
  });
  afterAll(async () => {
    client.close();
    await cluster.stop();
  });

  it('GIVEN two electors WHEN both try THEN exactly one leads and the namespace and lease exist', async () => {
    const name = leaseName();
    const a = elector(name, 'agent-a');
    const b = elector(name, 'agent-b');
    const [ra, rb] = await Promise.all([a.tryAcquireOrRenew(), b.tryAcquireOrRenew()]);
    expect([ra, rb].filter(Boolean)).toHaveLength(1);
    const leader = ra ? 'agent-a' : 'agent-b';
    expect(await leaseSpec(name)).toMatchObject({ holderIdentity: leader, leaseDurationSeconds: 1, leaseTransitions: 0 });
    // The loser keeps losing while the leader renews.
    const loser = ra ? b : a;
    expect(await loser.tryAcquireOrRenew()).toBe(false);
    expect(await (ra ? a : b).tryAcquireOrRenew()).toBe(true);
  });

  it('GIVEN a leader running work WHEN it releases THEN the waiting agent takes over promptly', async () => {
    const name = leaseName();
    const stopA = new AbortController();
    let aWorking = false;
    let bWorking = false;
    const a = runAsLeader({ client, name, identity: 'agent-a', ...FAST }, async (signal) => {
      aWorking = true;
      await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
      aWorking = false;
    }, stopA.signal);
    await until(() => aWorking, 3000);
    const stopB = new AbortController();
    const b = runAsLeader({ client, name, identity: 'agent-b', ...FAST }, async (signal) => {
      bWorking = true;
      await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
    }, stopB.signal);
    await sleep(300);
    expect(bWorking).toBe(false);
    stopA.abort();
    expect(await a).toEqual({ kind: 'aborted' });
    // Released: B need not wait for expiry, only for its next retry.
    const took = await until(() => bWorking, 3000);
    expect(took).toBeLessThan(FAST.leaseDurationMs);
    const spec = await leaseSpec(name);
    expect(spec).toMatchObject({ holderIdentity: 'agent-b', leaseTransitions: 1 });
    stopB.abort();
    await b;
    expect(await leaseSpec(name)).toMatchObject({ holderIdentity: '' });
  });

  it('GIVEN a leader that stops renewing (died) WHEN the lease expires THEN the other takes over within about a lease duration', async () => {
    const name = leaseName();
    const dead = elector(name, 'agent-dead');
    expect(await dead.tryAcquireOrRenew()).toBe(true);
    const diedAt = Date.now();
    const successor = elector(name, 'agent-next');
    const abort = new AbortController();
    const acquired = successor.acquire(abort.signal);
    expect(await acquired).toBe(true);
    const waited = Date.now() - diedAt;
    expect(waited).toBeGreaterThanOrEqual(FAST.leaseDurationMs - 50);
    expect(waited).toBeLessThan(FAST.leaseDurationMs * 2 + 500);
    const spec = await leaseSpec(name);
    expect(spec).toMatchObject({ holderIdentity: 'agent-next', leaseTransitions: 1 });
    // The old leader, back from the dead, finds the lease taken and does not lead.
    expect(await dead.tryAcquireOrRenew()).toBe(false);
  });

  it('GIVEN a leader whose lease is taken over WHEN it next renews THEN its work is aborted (lost)', async () => {
    const name = leaseName();
    // A frozen clock for the thief makes the lease look expired to it at once (clock skew / a stale leader).
    const thiefClock: LeaderClock = { now: () => Date.now() + 60_000, sleep: (ms) => sleep(ms) };
    let sawAbort = false;
    const result = runAsLeader({ client, name, identity: 'agent-a', ...FAST }, async (signal) => {
      const thief = elector(name, 'agent-thief', { clock: thiefClock });
      expect(await thief.tryAcquireOrRenew()).toBe(true);
      await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
      sawAbort = true;
    });
    expect(await result).toEqual({ kind: 'lost' });
    expect(sawAbort).toBe(true);
    // The lost leader does not release a lease it no longer holds.
    expect(await leaseSpec(name)).toMatchObject({ holderIdentity: 'agent-thief' });
  });

  it('GIVEN a stale resourceVersion (a conflicting update) WHEN writing THEN the attempt fails without an error and the next one decides', async () => {
    const name = leaseName();
    const a = elector(name, 'agent-a');
    expect(await a.tryAcquireOrRenew()).toBe(true);
    // Interleave: B reads, A renews (new resourceVersion), B's update then conflicts (409).
    const realGet = client.get.bind(client);
    let interleaved = false;
    const racing = new LeaderElector({
      ...FAST, name, identity: 'agent-b', clock: { now: () => Date.now() + 60_000, sleep: (ms) => sleep(ms) },
      client: Object.assign(Object.create(client) as HttpKubeClient, {
        get: async (ref: Parameters<HttpKubeClient['get']>[0]) => {
          const got = await realGet(ref);
          if (!interleaved && ref.kind === 'Lease') { interleaved = true; await a.tryAcquireOrRenew(); }
          return got;
        },
      }),
    });
    expect(await racing.tryAcquireOrRenew()).toBe(false);
    expect(interleaved).toBe(true);
    expect(await leaseSpec(name)).toMatchObject({ holderIdentity: 'agent-a' });
  });

  it('GIVEN a lease Baton wrote WHEN kubectl reads it THEN the MicroTime fields round-trip', async () => {
    const name = leaseName();
    expect(await elector(name, 'agent-kubectl').tryAcquireOrRenew()).toBe(true);
    const yaml = await cluster.kubectl(['get', 'lease', name, '-n', 'baton-system', '-o', 'yaml']);
    expect(yaml.stderr).toBe('');
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toMatch(/renewTime: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"/);
    expect(yaml.stdout).toContain('holderIdentity: agent-kubectl');
    const table = await cluster.kubectl(['get', 'leases', '-n', 'baton-system']);
    expect(table.stdout).toMatch(new RegExp(`${name}\\s+agent-kubectl`));
  });
});
