/**
 * A shard member's Lease renewed from a thread of its own (src/shards/lease-renewer/), against the
 * simulated API server in a process of its own over real HTTP (an in-process server would be blocked
 * along with the test's event loop). The main event loop is blocked by a busy loop, as rendering, YAML,
 * git and status work block an agent's under load:
 * - blocked past the renew deadline but within the liveness bound, the member keeps its Lease and
 *   goes on acting (in-thread renewals lost it: the renewals waited for the loop);
 * - blocked past the liveness bound (stuck), it gives the Lease up and acts no more, the moment the
 *   loop runs again;
 * - a renewer thread that ends unexpectedly stops the member, logged;
 * - a graceful stop deletes the Lease and the thread does not keep the process alive.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { ShardMember, type ShardMemberOptions, type ShardResult } from '../../src/shards/index.js';
import type { ThreadedMemberLease } from '../../src/shards/lease-renewer/index.js';
import { startClusterProcess, type ClusterProcess } from '../helpers/cluster-process.js';
import { until } from '../helpers/wait.js';

const LEASE = { leaseDurationMs: 3000, renewDeadlineMs: 1500, retryPeriodMs: 400 } as const;
const LIVENESS_MS = 2500;
/** Five retry periods and past the renew deadline, but within the lease duration. */
const BUSY_MS = 2000;
/**
 * The liveness bound of the member blocked for BUSY_MS: well past it. Blocked for BUSY_MS, the main
 * thread is silent for BUSY_MS plus up to a heartbeat interval (500 ms) plus however late its timer
 * runs: a bound of 2500 ms left no room on a loaded machine (test/sync/leader-thread.test.ts gave its
 * Lease up that way, "did not check in for 2513 ms", at load 30).
 */
const BUSY_LIVENESS_MS = 8000;
/** Past the liveness bound and the retry period after it: the thread has seen the silence. */
const STUCK_MS = LIVENESS_MS + 3 * LEASE.retryPeriodMs;
const keys = Array.from({ length: 50 }, (_, i) => `ns-${i % 3}/app-${i}`);
const CONFIG = { repo: 'https://git.example/ops.git', branch: 'main' };

/** The main event loop does nothing else for `ms` (the agent rendering or parsing under load). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* blocked */ }
}

const renewTimeOf = (lease: KubeObject | undefined): number => Date.parse(String((lease?.spec as { renewTime?: string } | undefined)?.renewTime ?? ''));

describe('a member lease renewed from its own thread', () => {
  let cluster: ClusterProcess;
  let client: HttpKubeClient;
  let set = 0;
  const running: Array<{ abort: AbortController; done: Promise<unknown> }> = [];

  beforeAll(async () => {
    cluster = await startClusterProcess();
    client = await createKubeClient({ url: cluster.url });
  });
  afterEach(async () => {
    for (const r of running.splice(0)) { r.abort.abort(); await r.done; }
  });
  afterAll(async () => {
    client.close();
    await cluster.stop();
  });

  const member = (shardSet: string, logs: string[], extra: Partial<ShardMemberOptions> = {}): ShardMember => new ShardMember({
    client, shardSet, namespace: 'baton-system', identity: `${shardSet}-a`, config: CONFIG, ...LEASE,
    leaseThread: { client: { url: cluster.url }, livenessMs: LIVENESS_MS },
    log: (level, message) => logs.push(`${level} ${message}`), ...extra,
  });
  const start = (m: ShardMember): Promise<ShardResult> => {
    const abort = new AbortController();
    const done = m.run((signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })), abort.signal);
    running.push({ abort, done });
    return done;
  };
  const leaseOf = (m: ShardMember): Promise<KubeObject | undefined> => client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'baton-system', name: m.lease.name });

  it('GIVEN a main event loop blocked past the renew deadline but within the liveness bound THEN the member keeps its lease and goes on acting', async () => {
    const logs: string[] = [];
    const a = member(`t${++set}`, logs, { leaseThread: { client: { url: cluster.url }, livenessMs: BUSY_LIVENESS_MS } });
    const result = start(a);
    await until(() => keys.every((k) => a.mayAct(k)), 30_000, 'a acting on every instance');
    const before = Date.now();
    busy(BUSY_MS);
    const after = Date.now();
    // Read at once, before any message from the thread could be handled: the fence reads shared memory.
    const valid = a.fence.valid;
    const acting = keys.filter((k) => a.mayAct(k)).length;
    expect(valid, logs.join('\n')).toBe(true);
    expect(acting).toBe(keys.length);
    // The thread renewed while the loop was blocked (the renew time is written by the thread's wall clock).
    const renewed = renewTimeOf(await leaseOf(a));
    expect(renewed).toBeGreaterThan(before);
    await until(async () => renewTimeOf(await leaseOf(a)) > after, 30_000, 'renewals go on');
    expect(a.fence.isLost).toBe(false);
    expect(await Promise.race([result, Promise.resolve('running')]), logs.join('\n')).toBe('running');
  });

  it('GIVEN a main event loop blocked past the liveness bound (stuck) THEN the member gives its lease up and acts on nothing the moment the loop runs again', async () => {
    const logs: string[] = [];
    const a = member(`t${++set}`, logs);
    const result = start(a);
    await until(() => keys.every((k) => a.mayAct(k)), 30_000, 'a acting on every instance');
    busy(STUCK_MS);
    // At once, before any message or timer: no instance may be acted on any more.
    const acting = keys.filter((k) => a.mayAct(k)).length;
    expect(acting).toBe(0);
    expect(a.fence.valid).toBe(false);
    const outcome = await result;
    expect(outcome.kind).toBe('lost');
    expect(outcome.kind === 'lost' ? outcome.why : '').toMatch(/main thread did not check in for \d+ ms \(liveness bound 2500 ms\)/);
    // And the lease is renewed no more: it expires for the others as if the process had died.
    const last = (await leaseOf(a))?.metadata.resourceVersion;
    const since = performance.now();
    await until(() => performance.now() - since > 3 * LEASE.retryPeriodMs, 10_000, 'three retry periods');
    expect((await leaseOf(a))?.metadata.resourceVersion).toBe(last);
  });

  it('GIVEN the renewer thread ends unexpectedly THEN the member stops acting and says why', async () => {
    const logs: string[] = [];
    const a = member(`t${++set}`, logs);
    const result = start(a);
    await until(() => keys.every((k) => a.mayAct(k)), 30_000, 'a acting on every instance');
    await (a.lease as ThreadedMemberLease).worker?.terminate();
    const outcome = await result;
    expect(outcome.kind).toBe('lost');
    expect(outcome.kind === 'lost' ? outcome.why : '').toMatch(/the lease renewer thread ended unexpectedly \(exit code 1\); this agent stops acting/);
    expect(logs.join('\n')).toMatch(/error the lease renewer thread ended unexpectedly/);
    expect(keys.some((k) => a.mayAct(k))).toBe(false);
  });

  it('GIVEN a member in a process of its own WHEN its work ends THEN its lease is deleted and the process exits by itself (the thread does not keep it alive)', async () => {
    const name = `t${++set}`;
    const entry = join(import.meta.dirname, '..', '..', 'src', 'shards', 'index.ts');
    const code = [
      `const { ShardMember } = await import(${JSON.stringify(entry)});`,
      `const { createKubeClient } = await import(${JSON.stringify(join(import.meta.dirname, '..', '..', 'src', 'kube', 'http-client.ts'))});`,
      `const client = await createKubeClient({ url: ${JSON.stringify(cluster.url)} });`,
      `const m = new ShardMember({ client, shardSet: ${JSON.stringify(name)}, namespace: 'baton-system', identity: 'solo', config: ${JSON.stringify(CONFIG)}, ...${JSON.stringify(LEASE)}, leaseThread: { client: { url: ${JSON.stringify(cluster.url)} } } });`,
      // Work that lasts a few renewals, then ends: the member deletes its lease.
      `const r = await m.run(() => new Promise((resolve) => setTimeout(resolve, ${4 * LEASE.retryPeriodMs})));`,
      `client.close();`,
      `process.stdout.write('result ' + r.kind + '\\n');`,
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    let code0: number | null | undefined;
    void exited.then((c) => { code0 = c; });
    try {
      await until(() => code0 !== undefined, 60_000, `the member's process exits by itself (output: ${out})`);
    } finally {
      if (code0 === undefined) child.kill('SIGKILL');
    }
    expect(out).toMatch(/result completed/);
    expect(code0).toBe(0);
    const leases = await client.list('coordination.k8s.io/v1', 'Lease', 'baton-system', { labelSelector: `baton.dev/shard-set=${name}` });
    expect(leases.items).toEqual([]);
  });
});
