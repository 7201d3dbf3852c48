import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { isRecord, type KubeObject } from '../../src/kube/object.js';
import type { KubeClient } from '../../src/kube/client.js';
import {
  LeaderElectionError, LeaderElector, defaultIdentity, formatMicroTime, holderIsDeadLocalProcess, leaseNameFor, parseMicroTime, runAsLeader, type LeaderClock, type LeaderOptions,
} from '../../src/sync/leader.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { clusterForFile } from '../helpers/engine-harness.js';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { runAgent } from '../../src/sync/run.js';
import { resolveSettings } from '../../src/sync/settings.js';
import { gitSandbox, workClone, type GitSandbox, type WorkClone } from '../helpers/git-server.js';
import { instance, webFramework } from './fixtures.js';
import { verifyCommit } from '../../src/git/verify.js';
import { load as parseYaml } from 'js-yaml';

// Short but real durations: end-to-end takeovers against the simulated API server.
const FAST = { leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 100 } as const;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Time as the electors see it, apart from the wall clock, so a loaded machine cannot expire a lease
 * between two steps of a test: `frozen` never moves (a lease can only change hands by release);
 * `virtual` moves only when an elector sleeps (a takeover after expiry, measured exactly).
 */
function frozenClock(at = Date.now()): LeaderClock {
  return { now: () => at, sleep: (ms, signal) => (signal?.aborted ? Promise.resolve() : sleep(ms)) };
}
function virtualClock(start = Date.now()): LeaderClock {
  let t = start;
  return { now: () => t, sleep: async (ms) => { t += ms; await new Promise((r) => setImmediate(r)); } };
}

async function until(cond: () => boolean, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(20);
  }
  return Date.now() - start;
}

describe('judging another holder\'s lease', () => {
  it('GIVEN a read answered late (a busy event loop) WHEN its record is new THEN it counts from when the answer arrived, so the lease does not expire early', async () => {
    const start = Date.now();
    let t = start;
    const clock: LeaderClock = { now: () => t, sleep: async () => undefined };
    const lease = (rv: string): KubeObject => ({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'ns', resourceVersion: rv },
      // Written by a holder whose clock runs ahead: its renew time says nothing about expiry here.
      spec: { holderIdentity: 'other', leaseDurationSeconds: 5, renewTime: formatMicroTime(start + 60_000) },
    });
    let slow = true;
    const writes: string[] = [];
    const client = {
      get: async () => {
        // The first answer is handled 4 s after the read went out: the holder may have renewed just before the server answered.
        if (slow) { slow = false; t += 4000; }
        return lease('7');
      },
      update: async (o: KubeObject) => { writes.push('update'); return o; },
      create: async (o: KubeObject) => { writes.push('create'); return o; },
    } as unknown as KubeClient;
    const elector = new LeaderElector({ client, name: 'l', namespace: 'ns', identity: 'me', leaseDurationMs: 5000, renewDeadlineMs: 3000, retryPeriodMs: 1000, clock });
    expect(await elector.tryAcquireOrRenew()).toBe(false);
    // 5.5 s after the first read was sent, 1.5 s after its answer: not a lease duration of silence yet.
    t = start + 5500;
    expect(await elector.tryAcquireOrRenew()).toBe(false);
    t = start + 9000;
    expect(await elector.tryAcquireOrRenew()).toBe(true);
    expect(writes).toEqual(['update']);
  });
});

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
  const world = clusterForFile();
  let n = 0;
  const leaseName = (): string => `baton-agent-test${++n}`;
  const elector = (name: string, identity: string, extra: Partial<LeaderOptions> = {}): LeaderElector =>
    new LeaderElector({ client: world.client, name, identity, ...FAST, ...extra });
  const leaseSpec = async (name: string): Promise<Record<string, unknown>> => {
    const lease = await world.client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name, namespace: 'baton-system' });
    return isRecord(lease?.spec) ? lease.spec : {};
  };

  it('GIVEN two electors WHEN both try THEN exactly one leads and the namespace and lease exist', async () => {
    const name = leaseName();
    const clock = frozenClock();
    const a = elector(name, 'agent-a', { clock });
    const b = elector(name, 'agent-b', { clock });
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
    // A frozen clock: the lease can never expire, so B leading proves A released it.
    const clock = frozenClock();
    const a = runAsLeader({ client: world.client, name, identity: 'agent-a', ...FAST, clock }, async (signal) => {
      aWorking = true;
      await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
      aWorking = false;
    }, stopA.signal);
    await until(() => aWorking, 30_000);
    const stopB = new AbortController();
    let bWaited = 0;
    const log = (_level: string, message: string): void => { if (/held by another agent/.test(message)) bWaited++; };
    const b = runAsLeader({ client: world.client, name, identity: 'agent-b', ...FAST, clock, log }, async (signal) => {
      bWorking = true;
      await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
    }, stopB.signal);
    // B has tried and found A holding the lease (a condition, not a fixed sleep): it does not work.
    await until(() => bWaited > 0, 30_000);
    expect(bWorking).toBe(false);
    stopA.abort();
    expect(await a).toEqual({ kind: 'aborted' });
    // Released: B need not wait for expiry (which the frozen clock never reaches), only for its next retry.
    await until(() => bWorking, 30_000);
    const spec = await leaseSpec(name);
    expect(spec).toMatchObject({ holderIdentity: 'agent-b', leaseTransitions: 1 });
    stopB.abort();
    await b;
    expect(await leaseSpec(name)).toMatchObject({ holderIdentity: '' });
  });

  it('GIVEN a leader that stops renewing (died) WHEN the lease expires THEN the other takes over within about a lease duration', async () => {
    const name = leaseName();
    // Virtual time: it moves only by the successor's retry sleeps, so the wait is measured exactly.
    const clock = virtualClock();
    const dead = elector(name, 'agent-dead', { clock });
    expect(await dead.tryAcquireOrRenew()).toBe(true);
    const diedAt = clock.now();
    const successor = elector(name, 'agent-next', { clock });
    const abort = new AbortController();
    const acquired = successor.acquire(abort.signal);
    expect(await acquired).toBe(true);
    const waited = clock.now() - diedAt;
    expect(waited).toBeGreaterThanOrEqual(FAST.leaseDurationMs - 50);
    expect(waited).toBeLessThan(FAST.leaseDurationMs * 2 + 500);
    const spec = await leaseSpec(name);
    expect(spec).toMatchObject({ holderIdentity: 'agent-next', leaseTransitions: 1 });
    // The old leader, back from the dead, finds the lease taken and does not lead.
    expect(await dead.tryAcquireOrRenew()).toBe(false);
  });

  it('GIVEN a lease held by a killed agent on this host WHEN a restarted agent tries THEN it takes the lease at once', async () => {
    const name = leaseName();
    const gone = execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString();
    const deadIdentity = defaultIdentity().replace(/_\d+_([0-9a-f]{8})$/, `_${gone}_$1`);
    expect(holderIsDeadLocalProcess(deadIdentity)).toBe(true);
    expect(holderIsDeadLocalProcess(defaultIdentity())).toBe(false);
    expect(holderIsDeadLocalProcess(`other-host_1_${gone}_0123abcd`)).toBe(false);
    expect(await elector(name, deadIdentity, { leaseDurationMs: 60_000, renewDeadlineMs: 40_000 }).tryAcquireOrRenew()).toBe(true);
    expect(await elector(name, 'agent-restarted', { leaseDurationMs: 60_000, renewDeadlineMs: 40_000 }).tryAcquireOrRenew()).toBe(true);
    expect(await leaseSpec(name)).toMatchObject({ holderIdentity: 'agent-restarted', leaseTransitions: 1 });
  });

  it('GIVEN a leader whose lease is taken over WHEN it next renews THEN its work is aborted (lost)', async () => {
    const name = leaseName();
    // A frozen clock for the thief makes the lease look expired to it at once (clock skew / a stale leader).
    const thiefClock: LeaderClock = { now: () => Date.now() + 60_000, sleep: (ms) => sleep(ms) };
    let sawAbort = false;
    const result = runAsLeader({ client: world.client, name, identity: 'agent-a', ...FAST }, async (signal) => {
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
    const realGet = world.client.get.bind(world.client);
    let interleaved = false;
    const racing = new LeaderElector({
      ...FAST, name, identity: 'agent-b', clock: { now: () => Date.now() + 60_000, sleep: (ms) => sleep(ms) },
      client: Object.assign(Object.create(world.client) as HttpKubeClient, {
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
    const yaml = await world.cluster.kubectl(['get', 'lease', name, '-n', 'baton-system', '-o', 'yaml']);
    expect(yaml.stderr).toBe('');
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toMatch(/renewTime: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"/);
    expect(yaml.stdout).toContain('holderIdentity: agent-kubectl');
    const table = await world.cluster.kubectl(['get', 'leases', '-n', 'baton-system']);
    expect(table.stdout).toMatch(new RegExp(`${name}\\s+agent-kubectl`));
  });
});

describe('baton agent with leader election and signature verification', () => {
  let sandbox: GitSandbox;
  let cluster: TestCluster;
  let kube: HttpKubeClient;
  let user: WorkClone;
  let origin: string;
  let allowed: string;
  let key: string;

  beforeAll(async () => {
    sandbox = gitSandbox();
    cluster = await startTestCluster();
    kube = await createKubeClient({ url: cluster.url });
    origin = join(sandbox.dir, 'origin.git');
    execFileSync('git', ['init', '--bare', '--quiet', origin], { env: sandbox.env });
    user = await workClone(sandbox.env, origin, join(sandbox.dir, 'user'));
    key = join(sandbox.dir, 'signing-key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ops', '-f', key]);
    allowed = join(sandbox.dir, 'allowed_signers');
    writeFileSync(allowed, `ops@example.com ${readFileSync(`${key}.pub`, 'utf8')}`);
    for (const [path, text] of Object.entries(webFramework())) user.write(path, text);
    user.write('instances/team/app.yaml', instance({ VALUE: 'a' }));
    user.commit('app, unsigned');
    await user.push();
  });
  afterAll(async () => {
    kube.close();
    await cluster.stop();
    sandbox.cleanup();
  });

  const capture = (): CliIO & { out: string; err: string } => {
    const io = { out: '', err: '', isTTY: false, cwd: sandbox.dir, exitCode: 0, stdout: (t: string) => { io.out += t; }, stderr: (t: string) => { io.err += t; } };
    return io;
  };
  const configMap = (): Promise<unknown> => kube.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'app', namespace: 'team' });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed YAML document, matched field by field
  const statusAt = (ref: string): any => parseYaml(execFileSync('git', ['--git-dir', origin, 'show', `${ref}:status/team/app.yaml`], { env: sandbox.env }).toString());
  const lastSubject = (): string => execFileSync('git', ['--git-dir', origin, 'log', '-1', '--format=%s', 'main'], { env: sandbox.env }).toString().trim();

  it('GIVEN --verify-signatures WHEN the commit is unsigned THEN no plan runs and the refusal is reported; a signed commit then deploys', async () => {
    const once = async (...extra: string[]): Promise<CliIO & { out: string; err: string }> => {
      const io = capture();
      await main(['node', 'baton', 'agent', '--git', origin, '--once', '--kubeconfig', cluster.kubeconfigPath, '--data-dir', join(sandbox.dir, 'verify-data'), '--verify-signatures', allowed, ...extra], io);
      return io;
    };
    const unsignedCommit = execFileSync('git', ['--git-dir', origin, 'rev-parse', 'main'], { env: sandbox.env }).toString().trim();
    const refused = await once();
    expect(refused.exitCode).toBe(1);
    expect(refused.out).toMatch(/refused [0-9a-f]{12} \(unsigned\): commit [0-9a-f]{12} is not signed/);
    expect(refused.out).toContain('team/app: refused: commit');
    expect(refused.err).toContain('refusing commit');
    expect(await configMap()).toBeUndefined();
    // The refusal is in the instance's status in Git, naming the refused commit and the reason.
    const status = statusAt('main');
    expect(status).toMatchObject({ state: 'REFUSED', refusal: { code: 'COMMIT_UNSIGNED', commit: unsignedCommit } });
    expect(status.refusal.message).toContain('is not signed');
    expect(lastSubject()).toMatch(/^team\/app: change refused: commit [0-9a-f]{12} is not signed/);
    // A second pass over the same refused commit records nothing new.
    const tipBefore = execFileSync('git', ['--git-dir', origin, 'rev-parse', 'main'], { env: sandbox.env }).toString().trim();
    expect((await once()).exitCode).toBe(1);
    expect(execFileSync('git', ['--git-dir', origin, 'rev-parse', 'main'], { env: sandbox.env }).toString().trim()).toBe(tipBefore);
    await user.pull();

    user.git('config', 'gpg.format', 'ssh');
    user.git('config', 'user.signingkey', key);
    user.git('config', 'commit.gpgsign', 'true');
    user.commit('signed by ops');
    await user.push();
    const applied = await once('--signing-key', key);
    expect(applied.out).toContain('team/app: deploy COMPLETE');
    expect(applied.exitCode).toBe(0);
    expect(await configMap()).toBeDefined();
    // The status commit the agent pushed is signed with --signing-key and verifies against the same signers.
    const tip = execFileSync('git', ['--git-dir', origin, 'rev-parse', 'main'], { env: sandbox.env }).toString().trim();
    expect(execFileSync('git', ['--git-dir', origin, 'log', '-1', '--format=%s', tip], { env: sandbox.env }).toString()).not.toContain('signed by ops');
    expect(await verifyCommit(origin, tip, { allowedSigners: allowed })).toMatchObject({ verified: true, signer: 'ops@example.com' });
    // Status-only commits on top of the verified change do not lock the agent out.
    const again = await once();
    expect(again.out).toContain('nothing to do');
    expect(again.exitCode).toBe(0);
    expect(statusAt('main')).toMatchObject({ state: 'COMPLETE' });
    expect(statusAt('main').refusal).toBeUndefined();

    // An unsigned change on top of a deployed, verified state: refused in status, the live object unchanged.
    await user.pull();
    user.git('config', 'commit.gpgsign', 'false');
    user.write('instances/team/app.yaml', instance({ VALUE: 'b' }));
    const sneaky = user.commit('unsigned value change');
    await user.push();
    const second = await once();
    expect(second.exitCode).toBe(1);
    expect(second.out).toContain('team/app: refused: commit');
    expect(statusAt('main')).toMatchObject({ state: 'REFUSED', refusal: { code: 'COMMIT_UNSIGNED', commit: sneaky }, currentPlan: expect.objectContaining({ plan: 'deploy', state: expect.objectContaining({ status: 'COMPLETE' }) }) });
    expect(await configMap()).toMatchObject({ data: { value: 'a' } });

    // A signed commit that reverts the change: nothing to apply, and the refusal is cleared from status.
    await user.pull();
    user.git('config', 'commit.gpgsign', 'true');
    user.write('instances/team/app.yaml', instance({ VALUE: 'a' }));
    user.commit('signed revert');
    await user.push();
    const reverted = await once();
    expect(reverted.exitCode).toBe(0);
    expect(statusAt('main')).toMatchObject({ state: 'COMPLETE' });
    expect(statusAt('main').refusal).toBeUndefined();
    // Seven agent passes with clones, ssh-keygen signature checks and deploys: about 50 s alone, minutes
    // on a machine shared with other suites. The timeout only catches a hang.
  }, 300_000);

  it('GIVEN two agents in loop mode WHEN the leader shuts down THEN it releases the lease and the other takes over', async () => {
    const name = leaseNameFor(origin, 'main');
    const holder = async (): Promise<string | undefined> => {
      const lease = await kube.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name, namespace: 'baton-system' });
      return isRecord(lease?.spec) && typeof lease.spec.holderIdentity === 'string' ? lease.spec.holderIdentity : undefined;
    };
    const start = (dir: string): { stop: AbortController; done: Promise<number>; log: string[] } => {
      const stop = new AbortController();
      const log: string[] = [];
      const settings = resolveSettings({ repo: origin, kubeconfig: cluster.kubeconfigPath, dataDir: join(sandbox.dir, dir), interval: '200ms' }, {}, sandbox.dir);
      const done = runAgent(settings, { interval: true, statusBranch: false }, { log: (level, msg) => log.push(`${level} ${msg}`), report: () => undefined }, stop.signal);
      return { stop, done, log };
    };
    const a = start('agent-a');
    // The waits only catch a hang: at load ~20 (npm test beside other suites) 10 s was not enough, and
    // at load 28-45 (a loop of test/sync files) 30 s once was not either. On failure: the agent's log.
    const logged = async (agent: { log: string[] }, text: string): Promise<void> => {
      await until(() => agent.log.some((l) => l.includes(text)), 90_000).catch((err: Error) => {
        throw new Error(`'${text}' not logged: ${err.message}; the agent's log:\n${agent.log.join('\n')}`);
      });
    };
    await logged(a, 'became leader');
    const first = await holder();
    expect(first).toMatch(/_\d+_[0-9a-f]{8}$/);
    const b = start('agent-b');
    await logged(b, 'held by another agent');
    expect(b.log.some((l) => l.includes('became leader'))).toBe(false);
    a.stop.abort();
    expect(await a.done).toBe(0);
    await logged(b, 'became leader');
    const second = await holder();
    expect(second).not.toBe(first);
    b.stop.abort();
    expect(await b.done).toBe(0);
    expect(await holder()).toBe('');
    // Two agents' start-ups, a shutdown and a takeover: a hang, not the machine's load, should fail it.
  }, 300_000);
});
